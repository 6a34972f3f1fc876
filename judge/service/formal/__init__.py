"""Formal Diplomacy games over the store: its orders, state, repairs and phase hook."""
