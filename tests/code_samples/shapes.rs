//! Geometry helpers used by the renderer.

use std::collections::HashMap;
use std::fmt::{self, Display};

/// A shape that knows its area.
pub trait Shape {
    fn area(&self) -> f64;
}

/// A circle centred at the origin.
#[derive(Debug, Clone)]
pub struct Circle {
    pub radius: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.radius * self.radius
    }
}

impl Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "circle(r={})", self.radius)
    }
}

pub enum Kind {
    Round,
    Square,
}

/// Totals the area per kind name, skipping degenerate shapes.
pub fn summarize(shapes: &[Circle]) -> HashMap<String, f64> {
    fn weight(r: f64) -> f64 {
        if r > 10.0 { 2.0 } else { 1.0 }
    }
    let mut totals = HashMap::new();
    let mut skipped = 0usize;
    for shape in shapes {
        if shape.radius <= 0.0 {
            skipped += 1;
            continue;
        }
        let area = shape.area() * weight(shape.radius);
        *totals.entry("circle".to_string()).or_insert(0.0) += area;
    }
    let largest = shapes.iter().map(|s| s.radius).fold(0.0_f64, f64::max);
    let smallest = shapes.iter().map(|s| s.radius).fold(f64::INFINITY, f64::min);
    totals.insert("largest".to_string(), largest);
    totals.insert("smallest".to_string(), smallest);
    totals.insert("skipped".to_string(), skipped as f64);
    let label = format!("{} shapes", shapes.len());
    println!("{}", label);
    totals
}
