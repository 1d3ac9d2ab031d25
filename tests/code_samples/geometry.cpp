#include <cmath>
#include <vector>

namespace geo {

// A 2D point.
class Point {
public:
    Point(double x, double y) : x_(x), y_(y) {}

    double norm() const {
        return std::sqrt(x_ * x_ + y_ * y_);
    }

private:
    double x_;
    double y_;
};

double perimeter(const std::vector<Point>& pts);

}  // namespace geo

double geo::perimeter(const std::vector<Point>& pts) {
    double total = 0;
    for (size_t i = 1; i < pts.size(); ++i) {
        total += pts[i].norm() - pts[i - 1].norm();
    }
    return total;
}
