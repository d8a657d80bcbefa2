"""Deciding one job: the engine run within its budgets, and every solution it returns replayed by the referee."""
