"""The report's plots: solvable share, solution length, nodes searched and fewest cells needed, by free cells."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402

from .outputs import write_atomically  # noqa: E402
from .report import NOT_WON  # noqa: E402

DPI = 110


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    try:
        # savefig takes the format from the name, which the temporary file's lacks.
        return write_atomically(path, lambda p: fig.savefig(p, dpi=DPI, format="png"))
    finally:
        plt.close(fig)


def _variants(report) -> list[str]:
    return sorted(report.summary["variant"].unique())


def solvable_share(report, path: Path) -> Path:
    """Bars: the share of decided deals that can be won, per cell count (and variant)."""
    variants = _variants(report)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    width = 0.8 / len(variants)
    for i, variant in enumerate(variants):
        rows = report.summary[report.summary["variant"] == variant].sort_values("cells")
        xs = [c + (i - (len(variants) - 1) / 2) * width for c in rows["cells"]]
        bars = ax.bar(xs, 100 * rows["solvable_share"], width=width, label=variant)
        for bar, share, jobs in zip(bars, rows["solvable_share"], rows["jobs"]):
            ax.annotate(f"{100 * share:.1f}%\n(n={jobs:,})", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=8)
    cells = sorted(report.summary["cells"].unique())
    ax.set_xticks(cells)
    ax.set_xlabel("free cells")
    ax.set_ylabel("winnable deals (% of decided)")
    ax.set_ylim(0, 115)
    ax.set_title("How many deals can be won, by number of free cells")
    if len(variants) > 1:
        ax.legend()
    return _save(fig, path)


def _box_by_cells(report, column: str, path: Path, title: str, ylabel: str, log: bool, solved_only: bool) -> Path:
    data = report.data
    if solved_only:
        data = data[data["status"] == "solved"]
    variants = _variants(report)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    positions, series, labels = [], [], []
    cells = sorted(data["cells"].unique())
    for j, k in enumerate(cells):
        for i, variant in enumerate(variants):
            values = data[(data["cells"] == k) & (data["variant"] == variant)][column].dropna()
            if log:
                values = values[values > 0]
            if len(values):
                positions.append(j + (i - (len(variants) - 1) / 2) * 0.8 / len(variants))
                series.append(values.to_numpy())
                labels.append(f"{k}" if len(variants) == 1 else f"{k}\n{variant}")
    if series:
        ax.boxplot(series, positions=positions, widths=0.6 / len(variants), showfliers=True,
                   flierprops={"markersize": 2, "alpha": 0.4})
        ax.set_xticks(positions)
        ax.set_xticklabels(labels)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("free cells")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def min_cells(report, path: Path) -> Path:
    """Bars: how many deals need each number of cells at fewest (exact and upper bounds stacked)."""
    dist = report.min_cells_distribution()
    variants = _variants(report)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    width = 0.8 / len(variants)
    labels = sorted(dist["min_cells"].unique(), key=lambda v: (v == NOT_WON, v))
    for i, variant in enumerate(variants):
        # Only the counts are reindexed: a variant without some label gets zeros there
        # (filling the text column `variant` with 0 is what pandas refuses).
        counts = dist[dist["variant"] == variant].set_index("min_cells")[["deals_exact", "deals_upper_bound"]]
        rows = counts.reindex(labels, fill_value=0)
        xs = [j + (i - (len(variants) - 1) / 2) * width for j in range(len(labels))]
        tag = "" if len(variants) == 1 else f"{variant}: "
        ax.bar(xs, rows["deals_exact"], width=width, label=f"{tag}exact")
        tops = ax.bar(xs, rows["deals_upper_bound"], width=width, bottom=rows["deals_exact"],
                      label=f"{tag}at most this many (fewer cells not run or undecided)", alpha=0.5)
        for bar, total in zip(tops, rows["deals_exact"] + rows["deals_upper_bound"]):
            ax.annotate(f"{total:,}", (bar.get_x() + bar.get_width() / 2, total), ha="center", va="bottom", fontsize=8)
    top = (dist["deals_exact"] + dist["deals_upper_bound"]).max()
    ax.set_ylim(0, top * 1.35 if top else 1)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([lab if lab != NOT_WON else "not won\nat any count run" for lab in labels])
    ax.set_xlabel("fewest free cells that win the deal")
    ax.set_ylabel("deals")
    ax.set_title("How many free cells each deal needs")
    ax.legend(fontsize=8, loc="upper left")
    return _save(fig, path)


def draw_all(report, out: Path) -> list[Path]:
    """The four plots, in the order report.md shows them."""
    return [
        solvable_share(report, out / "solvable_share.png"),
        _box_by_cells(report, "moves", out / "moves.png", "Solution length of won deals, by free cells",
                      "moves (a sequence move counts as one; log scale)", log=True, solved_only=True),
        _box_by_cells(report, "nodes", out / "nodes.png", "Search effort per deal, by free cells",
                      "positions expanded (log scale)", log=True, solved_only=False),
        min_cells(report, out / "min_cells.png"),
    ]
