"""Inventory management for the warehouse service.

This module tracks stock levels per SKU and per warehouse, applies incoming
shipments and outgoing orders, and produces reorder suggestions. It is used
by both the HTTP API and the nightly reconciliation job, so everything here
must stay free of framework-specific code.
"""

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import wraps
from typing import Dict, Iterable, List, Optional

logger = logging.getLogger(__name__)

DEFAULT_REORDER_THRESHOLD = 20
DEFAULT_REORDER_QUANTITY = 100
MAX_BATCH_SIZE = 500
STALE_RESERVATION_AFTER = timedelta(hours=2)
SUPPORTED_WAREHOUSES = ("AMS-1", "BER-2", "LYS-1")


class InventoryError(Exception):
    """Raised when a stock operation cannot be applied."""


def audited(action: str):
    """Decorator that logs the start and end of an inventory operation."""

    def decorator(func):
        @wraps(func)
        def wrapper(self, *args, **kwargs):
            started = datetime.now(timezone.utc)
            logger.info("inventory.%s started", action)
            try:
                return func(self, *args, **kwargs)
            finally:
                elapsed = (datetime.now(timezone.utc) - started).total_seconds()
                logger.info("inventory.%s finished in %.3fs", action, elapsed)

        return wrapper

    return decorator


@dataclass
class StockItem:
    """Stock for a single SKU in a single warehouse."""

    sku: str
    warehouse: str
    on_hand: int = 0
    reserved: int = 0
    reorder_threshold: int = DEFAULT_REORDER_THRESHOLD
    last_updated: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    tags: List[str] = field(default_factory=list)

    @property
    def available(self) -> int:
        return max(self.on_hand - self.reserved, 0)

    def needs_reorder(self) -> bool:
        return self.available <= self.reorder_threshold


@dataclass
class Reservation:
    order_id: str
    sku: str
    warehouse: str
    quantity: int
    created_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


class InventoryService:
    """In-memory inventory store with reservation support."""

    def __init__(self, warehouses: Iterable[str] = SUPPORTED_WAREHOUSES):
        self._items: Dict[tuple, StockItem] = {}
        self._reservations: Dict[str, Reservation] = {}
        self._warehouses = set(warehouses)
        self._lock = asyncio.Lock()

    def get(self, sku: str, warehouse: str) -> Optional[StockItem]:
        return self._items.get((sku, warehouse))

    def _get_or_create(self, sku: str, warehouse: str) -> StockItem:
        if warehouse not in self._warehouses:
            raise InventoryError(f"unknown warehouse {warehouse!r}")
        key = (sku, warehouse)
        if key not in self._items:
            self._items[key] = StockItem(sku=sku, warehouse=warehouse)
        return self._items[key]

    @audited("receive")
    def receive_shipment(self, warehouse: str, lines: Dict[str, int]) -> int:
        """Add received quantities to stock; returns the number of units added."""
        total = 0
        for sku, quantity in lines.items():
            if quantity <= 0:
                raise InventoryError(f"invalid quantity {quantity} for {sku}")
            item = self._get_or_create(sku, warehouse)
            item.on_hand += quantity
            item.last_updated = datetime.now(timezone.utc)
            total += quantity
        return total

    async def reserve(self, order_id: str, sku: str, warehouse: str, quantity: int) -> Reservation:
        """Reserve stock for an order, waiting for the store lock."""
        async with self._lock:
            item = self.get(sku, warehouse)
            if item is None or item.available < quantity:
                raise InventoryError(f"insufficient stock for {sku} in {warehouse}")
            item.reserved += quantity
            reservation = Reservation(order_id, sku, warehouse, quantity)
            self._reservations[order_id] = reservation
            await asyncio.sleep(0)  # yield so other reservations can proceed
            return reservation

    def release(self, order_id: str) -> None:
        reservation = self._reservations.pop(order_id, None)
        if reservation is None:
            return
        item = self.get(reservation.sku, reservation.warehouse)
        if item is not None:
            item.reserved = max(item.reserved - reservation.quantity, 0)

    @audited("reconcile")
    def reconcile(self, counted: Dict[tuple, int], now: Optional[datetime] = None) -> Dict[str, object]:
        """Reconcile in-memory stock against a physical count.

        ``counted`` maps ``(sku, warehouse)`` to the quantity found on the
        shelves. Differences are applied, stale reservations are released and
        a summary report is returned for the nightly job to store.
        """
        now = now or datetime.now(timezone.utc)
        report: Dict[str, object] = {}
        adjustments: List[Dict[str, object]] = []
        released: List[str] = []
        unknown_keys: List[tuple] = []
        shrinkage_units = 0
        surplus_units = 0

        # 1. Drop reservations that have been open for too long.
        for order_id, reservation in list(self._reservations.items()):
            age = now - reservation.created_at
            if age > STALE_RESERVATION_AFTER:
                logger.warning("releasing stale reservation %s (age %s)", order_id, age)
                self.release(order_id)
                released.append(order_id)

        # 2. Apply physical counts.
        for key, physical in counted.items():
            sku, warehouse = key
            if warehouse not in self._warehouses:
                unknown_keys.append(key)
                continue
            if physical < 0:
                raise InventoryError(f"negative count for {sku} in {warehouse}")
            item = self._get_or_create(sku, warehouse)
            delta = physical - item.on_hand
            if delta == 0:
                continue
            if delta < 0:
                shrinkage_units += -delta
            else:
                surplus_units += delta
            adjustments.append(
                {
                    "sku": sku,
                    "warehouse": warehouse,
                    "before": item.on_hand,
                    "after": physical,
                    "delta": delta,
                }
            )
            item.on_hand = physical
            if item.reserved > item.on_hand:
                logger.error("reserved exceeds on-hand for %s/%s after count", sku, warehouse)
                item.reserved = item.on_hand
            item.last_updated = now

        # 3. Items we track but that were not counted are flagged, not zeroed.
        uncounted = [
            f"{sku}@{warehouse}"
            for (sku, warehouse) in self._items
            if (sku, warehouse) not in counted
        ]
        if uncounted:
            logger.info("%d tracked items were not part of the count", len(uncounted))

        # 4. Build the summary.
        adjustments.sort(key=lambda a: abs(a["delta"]), reverse=True)
        report["run_at"] = now.isoformat()
        report["adjustments"] = adjustments[:MAX_BATCH_SIZE]
        report["adjustment_count"] = len(adjustments)
        report["released_reservations"] = released
        report["unknown_locations"] = [f"{s}@{w}" for s, w in unknown_keys]
        report["uncounted"] = uncounted
        report["shrinkage_units"] = shrinkage_units
        report["surplus_units"] = surplus_units
        report["reorder"] = [item.sku for item in self._items.values() if item.needs_reorder()]
        return report

    def totals_by_warehouse(self) -> Dict[str, int]:
        totals: Dict[str, int] = defaultdict(int)
        for item in self._items.values():
            totals[item.warehouse] += item.on_hand
        return dict(totals)


def suggest_reorders(service: InventoryService, lead_time_days: int = 7) -> List[Dict[str, object]]:
    """Return reorder suggestions, largest shortfall first."""

    def quantity_for(item: StockItem) -> int:
        # Cover the lead time plus the threshold, in multiples of ten.
        target = item.reorder_threshold * 2 + lead_time_days * 5
        shortfall = max(target - item.available, 0)
        return max(DEFAULT_REORDER_QUANTITY, (shortfall + 9) // 10 * 10)

    suggestions = []
    for item in service._items.values():
        if item.needs_reorder():
            suggestions.append(
                {"sku": item.sku, "warehouse": item.warehouse, "quantity": quantity_for(item)}
            )
    return sorted(suggestions, key=lambda s: s["quantity"], reverse=True)
