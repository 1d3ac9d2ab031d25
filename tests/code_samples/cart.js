import { formatPrice } from "./money.js";
import * as log from "./log.js";

/** A shopping cart kept in memory. */
export class Cart {
  constructor(owner) {
    this.owner = owner;
    this.items = [];
  }

  /** Adds an item, merging with an existing line for the same SKU. */
  add(sku, qty, price) {
    const line = this.items.find((i) => i.sku === sku);
    if (line) {
      line.qty += qty;
    } else {
      this.items.push({ sku, qty, price });
    }
    return this;
  }

  total() {
    return this.items.reduce((sum, i) => sum + i.qty * i.price, 0);
  }
}

export function checkout(cart, coupon) {
  function discountFor(code) {
    return code === "HALF" ? 0.5 : 0;
  }
  const subtotal = cart.total();
  const discount = subtotal * discountFor(coupon);
  const shipping = subtotal > 100 ? 0 : 7.5;
  const taxes = (subtotal - discount) * 0.2;
  const total = subtotal - discount + shipping + taxes;
  log.info("checkout", cart.owner, formatPrice(total));
  if (total < 0) {
    throw new Error("negative total");
  }
  const receipt = {
    owner: cart.owner,
    lines: cart.items.length,
    subtotal,
    discount,
    shipping,
    taxes,
    total,
  };
  log.info("receipt", JSON.stringify(receipt));
  return receipt;
}

export const emptyCart = (owner) => new Cart(owner);
