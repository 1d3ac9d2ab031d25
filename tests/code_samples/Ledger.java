package com.example.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A ledger of signed amounts per account. */
public class Ledger {
    private final List<Long> entries = new ArrayList<>();

    /** Adds an entry and returns the new balance. */
    public long add(long amount) {
        entries.add(amount);
        return balance();
    }

    public long balance() {
        long total = 0;
        for (long e : entries) {
            total += e;
        }
        return total;
    }

    /** Rebuilds the ledger from a map of account totals, checking every value. */
    public void rebuild(Map<String, Long> totals) {
        entries.clear();
        long positive = 0;
        long negative = 0;
        for (Map.Entry<String, Long> entry : totals.entrySet()) {
            if (entry.getValue() == null) {
                throw new IllegalArgumentException("missing total for " + entry.getKey());
            }
            if (entry.getValue() >= 0) {
                positive += entry.getValue();
            } else {
                negative += entry.getValue();
            }
            entries.add(entry.getValue());
        }
        System.out.println("positive " + positive);
        System.out.println("negative " + negative);
        System.out.println("entries " + entries.size());
        System.out.println("balance " + balance());
    }

    interface Listener {
        void changed(long balance);
    }
}
