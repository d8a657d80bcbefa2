"""The report's plots: solvable share, solution length, nodes searched and fewest cells needed, by free cells."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt

from .outputs import write_atomically
from .report import NOT_WON, without_takeback
from .status import SOLVED

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


def _cell_axis(ax, cells: list[int], extra: tuple[str, ...] = ()) -> None:
    """The same x axis on every plot: cell count k at x = k, then any extra labels."""
    ticks = list(cells) + [max(cells, default=-1) + 1 + i for i in range(len(extra))]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(k) for k in cells] + list(extra))
    ax.set_xlim(min(ticks, default=0) - 0.6, max(ticks, default=0) + 0.6)


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
            ax.annotate(
                f"{100 * share:.1f}%\n(n={jobs:,})",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
    _cell_axis(ax, sorted(int(k) for k in report.summary["cells"].unique()))
    ax.set_xlabel("free cells")
    ax.set_ylabel("winnable deals (% of decided)")
    ax.set_ylim(0, 115)
    ax.set_title("How many deals can be won, by number of free cells")
    if len(variants) > 1:
        ax.legend()
    return _save(fig, path)


def _box_by_cells(
    report, column: str, path: Path, title: str, ylabel: str, log: bool, solved_only: bool, clip: float | None = None
) -> Path:
    """Boxes per cell count. With `clip`, the y axis ends at that quantile of all the
    values (times 1.15) and the outliers above it are counted in a note, so that a few
    very long solutions do not squeeze every box into one band."""
    data = report.data
    if solved_only:
        data = data[data["status"] == SOLVED]
    variants = _variants(report)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    positions, series = [], []
    cells = sorted(int(k) for k in data["cells"].unique())
    for k in cells:
        for i, variant in enumerate(variants):
            values = data[(data["cells"] == k) & (data["variant"] == variant)][column].dropna()
            if log:
                values = values[values > 0]
            if len(values):
                positions.append(k + (i - (len(variants) - 1) / 2) * 0.8 / len(variants))
                series.append(values.to_numpy(dtype=float))
    if series:
        ax.boxplot(
            series,
            positions=positions,
            widths=0.6 / len(variants),
            showfliers=True,
            flierprops={"markersize": 2, "alpha": 0.4},
        )
    _cell_axis(ax, cells)
    if len(variants) > 1:
        ax.set_title(title + " (" + ", ".join(variants) + ", left to right)")
    else:
        ax.set_title(title)
    if log:
        ax.set_yscale("log")
    elif clip is not None and series:
        everything = np.concatenate(series)
        top = float(np.quantile(everything, clip)) * 1.15
        above = int((everything > top).sum())
        ax.set_ylim(0, top)
        if above:
            ax.annotate(
                f"{above:,} value(s) above {top:,.0f} not shown (max {everything.max():,.0f})",
                (0.99, 0.98),
                xycoords="axes fraction",
                ha="right",
                va="top",
                fontsize=8,
            )
    ax.set_xlabel("free cells")
    ax.set_ylabel(ylabel)
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
        numbers = [int(lab) for lab in labels if lab != NOT_WON]
        where = {lab: (int(lab) if lab != NOT_WON else max(numbers, default=-1) + 1) for lab in labels}
        xs = [where[lab] + (i - (len(variants) - 1) / 2) * width for lab in labels]
        tag = "" if len(variants) == 1 else f"{variant}: "
        ax.bar(xs, rows["deals_exact"], width=width, label=f"{tag}exact", color=f"C{2 * i}")
        # Hatched and outlined, so that even a sliver of upper bounds stands out.
        tops = ax.bar(
            xs,
            rows["deals_upper_bound"],
            width=width,
            bottom=rows["deals_exact"],
            color="white",
            edgecolor=f"C{2 * i}",
            hatch="///",
            linewidth=1.2,
            label=f"{tag}at most this many (fewer cells not run or undecided)",
        )
        for bar, exact, upper in zip(tops, rows["deals_exact"], rows["deals_upper_bound"]):
            text = f"{exact + upper:,}" + (f"\n({upper:,} at most)" if upper else "")
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, exact + upper), ha="center", va="bottom", fontsize=8)
    top = (dist["deals_exact"] + dist["deals_upper_bound"]).max()
    ax.set_ylim(0, top * 1.35 if top else 1)
    numbers = sorted(int(lab) for lab in labels if lab != NOT_WON)
    _cell_axis(ax, numbers, ("not won\nat any count run",) if NOT_WON in labels else ())
    ax.set_xlabel("fewest free cells that win the deal")
    ax.set_ylabel("deals")
    ax.set_title("How many free cells each deal needs")
    ax.legend(fontsize=8, loc="upper left")
    return _save(fig, path)


def takeback(report, path: Path) -> Path:
    """Bars: deals won without take-back and with it, per cell count and take-back variant."""
    table = report.takeback
    variants = sorted(table["variant"].unique())
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bars = [(v, rule) for v in variants for rule in ("won_without", "won_with")]
    width = 0.8 / len(bars)
    for i, (variant, rule) in enumerate(bars):
        rows = table[table["variant"] == variant].sort_values("cells")
        xs = [c + (i - (len(bars) - 1) / 2) * width for c in rows["cells"]]
        label = f"{without_takeback(variant)} (without take-back)" if rule == "won_without" else variant
        drawn = ax.bar(xs, rows[rule], width=width, label=label, hatch="" if rule == "won_without" else "//")
        for bar, won, gained in zip(drawn, rows[rule], rows["won_only_with_takeback"]):
            note = f"{won:,}" + (f"\n(+{gained:,})" if rule == "won_with" else "")
            ax.annotate(
                note, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom", fontsize=8
            )
    _cell_axis(ax, sorted(int(k) for k in table["cells"].unique()))
    ax.set_xlabel("free cells")
    ax.set_ylabel("deals won")
    ax.set_ylim(0, 1.2 * max(table["decided_both_ways"].max(), 1))
    ax.set_title("Deals won with and without foundation take-back")
    ax.legend(fontsize=8, loc="upper left")
    return _save(fig, path)


def draw_all(report, out: Path) -> list[Path]:
    """The plots, in the order report.md shows them (take-back's last, when there is one)."""
    return [
        solvable_share(report, out / "solvable_share.png"),
        _box_by_cells(
            report,
            "moves",
            out / "moves.png",
            "Solution length of won deals, by free cells",
            "moves (a sequence move counts as one)",
            log=False,
            solved_only=True,
            clip=0.995,
        ),
        _box_by_cells(
            report,
            "nodes",
            out / "nodes.png",
            "Search effort per deal, by free cells",
            "positions expanded (log scale)",
            log=True,
            solved_only=False,
        ),
        min_cells(report, out / "min_cells.png"),
    ] + ([takeback(report, out / "takeback.png")] if len(report.takeback) else [])
