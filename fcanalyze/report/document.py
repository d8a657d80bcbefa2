"""A report of a dataset: every table computed once, then printed for a terminal, or written as Markdown, CSV, Parquet and plots."""

from __future__ import annotations

import functools
import os
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import FcanalyzeError
from ..game.scoring import SCORING
from ..outputs import check_output_path, percent, write_atomically
from ..solving.budgets import DEFAULT_MAX_SECONDS, retry_seconds
from ..status import SOLVED
from ..tables.shipped import TAKEBACK
from .analysis import (
    EFFORT_TABLE_COLUMNS,
    PAIRED_COLUMNS,
    SHORTEST_COLUMNS,
    SHORTEST_GROWTH_COLUMNS,
    effort,
    hardest,
    load,
    min_cells,
    min_cells_distribution,
    paired,
    published_comparison,
    select,
    shortest,
    shortest_growth,
    summarize,
    takeback_comparison,
    transitions,
    undecided,
    with_table_verdicts,
)
from .render import (
    ALWAYS_WRITTEN,
    EFFORT_COLUMNS,
    GROWTH_HEADINGS,
    MOVES_COLUMNS,
    PAIRED_HEADINGS,
    PUBLISHED_HEADINGS,
    SCORE_COLUMNS,
    SUMMARY_COLUMNS,
    UNDECIDED_LISTED,
    UNDECIDED_SHOWN,
    VERDICT_COLUMNS,
    VERDICT_WORDS,
    _deal_list,
    _ratio,
    _share,
    _typed,
    format_table,
    shown_distribution,
)


def report_directory(out: str | os.PathLike) -> Path:
    """`out` made ready for a report's files (created if need be), or FcanalyzeError
    saying why it cannot be: called before the report is built, so that a bad --out
    fails at once, not after the work."""
    out = Path(check_output_path(out))
    if out.exists() and not out.is_dir():
        raise FcanalyzeError(f"{out} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FcanalyzeError(f"cannot write to {out}: {e.strerror or e}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise FcanalyzeError(f"cannot write to {out}: permission denied")
    return out


@dataclass
class Report:
    """Every table of a report, computed once, and the rows they came from."""

    data: pd.DataFrame
    summary: pd.DataFrame
    transitions: pd.DataFrame
    lost: pd.DataFrame
    min_cells: pd.DataFrame
    hardest: pd.DataFrame
    published: pd.DataFrame
    undecided: pd.DataFrame
    takeback: pd.DataFrame
    gained: pd.DataFrame
    top: int = 10
    # Set by a report built shard by shard (report.batches): the distribution of
    # the fewest cells (min_cells then holds no deals), and what the report left out.
    distribution: pd.DataFrame | None = None
    note: str = ""
    effort: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=EFFORT_TABLE_COLUMNS))
    paired: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAIRED_COLUMNS))
    shortest: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SHORTEST_COLUMNS))
    shortest_growth: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SHORTEST_GROWTH_COLUMNS))

    @classmethod
    def build(
        cls,
        data,
        top: int = 10,
        scheduler: str | None = None,
        cells: Sequence[int] | None = None,
        deals: Sequence[tuple[int, int]] | None = None,
    ) -> Report:
        """The report of a dataset, a file, several of them, or a DataFrame, of its
        rows with one of `cells` and a deal in the spans `deals` (None: all). A
        cluster sweep's dataset of more than BATCH_ROWS rows, or any with `scheduler`
        (a Dask scheduler's address), is read a shard at a time (report.batches)."""
        from ..dataset.store import chunked_layout
        from .batches import BATCH_ROWS, build_by_shard

        paths = [data] if isinstance(data, (str, os.PathLike)) else data
        layout = chunked_layout(paths[0]) if isinstance(paths, list) and len(paths) == 1 else None
        if scheduler is not None and layout is None:
            raise FcanalyzeError(
                "--scheduler reads one cluster sweep's dataset (shard=N folders) on the cluster; "
                "report other datasets without it"
            )
        if layout is not None and (layout[0] > BATCH_ROWS or scheduler is not None):
            return cls(**build_by_shard(paths[0], top, layout[0], scheduler, layout[1], cells=cells, deals=deals))
        frame = load(data)
        if cells is not None or deals is not None:
            frame = select(frame, cells, deals)
            if frame.empty:
                raise FcanalyzeError("no rows of the dataset have the cell counts and deals asked for")
        table, lost = transitions(frame)
        takeback, gained = takeback_comparison(frame)
        return cls(
            frame,
            summarize(frame),
            table,
            lost,
            min_cells(frame),
            hardest(frame, top),
            published_comparison(frame),
            with_table_verdicts(undecided(frame)),
            takeback,
            gained,
            top,
            effort=effort(frame),
            paired=paired(frame),
            shortest=shortest(frame),
            shortest_growth=shortest_growth(frame),
        )

    def min_cells_distribution(self) -> pd.DataFrame:
        """How many deals need each number of cells at fewest (exact values and upper bounds)."""
        return self.distribution if self.distribution is not None else min_cells_distribution(self.min_cells)

    def problems(self) -> list[str]:
        """Loud warnings: verdicts that contradict the published counts or each other."""
        out = []
        for row in self.published.itertuples():
            if row.agrees == "NO":
                out.append(
                    f"MISMATCH with published counts at {row.cells} cells: measured {row.measured_winnable:,} "
                    f"winnable / {row.measured_unwinnable:,} unwinnable ({row.undecided:,} undecided), "
                    f"published {row.published_winnable:,} / {row.published_unwinnable:,}"
                )
        for step in self.transitions.to_dict("records"):
            if step["anomalies"]:
                out.append(
                    f"CONTRADICTION: {step['anomalies']} deal(s) lost with {step['from_cells']} cells but won with "
                    f"{step['to_cells']} ({step['variant']}); fewer cells can never help"
                )
        for compared in self.takeback.to_dict("records"):
            if compared["anomalies"]:
                out.append(
                    f"CONTRADICTION: {compared['anomalies']} deal(s) won without take-back but lost with it "
                    f"({compared['variant']}, {compared['cells']} cells); take-back only adds moves"
                )
        return out

    def takeback_lines(self, markdown: bool) -> list[str]:
        """The take-back section: the table, and the deals it wins that were lost."""
        if not len(self.takeback):
            return []
        lines = [
            format_table(self.takeback, markdown=markdown),
            "",
        ]
        for (variant, cells), group in self.gained.groupby(["variant", "cells"], sort=False):
            lines.append(
                ("- " if markdown else "")
                + _deal_list(
                    f"{variant}, {cells} cells, won only with take-back", group["deal"], 100, "takeback_gains.csv"
                )
            )
        return lines

    def undecided_advice(self) -> str:
        """What to do about the undecided jobs: the shipped table's verdicts where it has
        them (retries with a sweep's budgets do not finish those), a retry for the rest."""
        jobs = self.undecided
        known = jobs[jobs["table_status"].notna()] if "table_status" in jobs else jobs.head(0)
        parts = []
        if len(known):
            won = int((known["table_status"] == SOLVED).sum())
            first = known.iloc[0]
            flag = " --takeback" if str(first["variant"]) == TAKEBACK else ""
            parts.append(
                f"The shipped table settles {len(known):,} of them ({won:,} won, {len(known) - won:,} lost; the "
                "table_status column) with searches of up to hours and gigabytes, which a retry with a sweep's "
                f"budgets would not finish: see each with 'fcanalyze lookup {first['deal']}{flag}'."
            )
        rest = jobs.drop(known.index)
        if len(rest):
            others = "The other" if len(known) else "All"
            if set(rest["limit"].dropna()) == {"seconds"}:
                had = rest["max_seconds"].max() if "max_seconds" in rest else float("nan")
                known_budget = had == had
                budget = f"more time than the {had:g} s they had" if known_budget else "more time"
                retry = f"--retry-unknown --max-seconds {retry_seconds(had if known_budget else DEFAULT_MAX_SECONDS):g}"
            else:
                budget = "more of the budget that ran out (the limit column)"
                retry = "--retry-unknown and that budget raised"
            parts.append(
                f"{others} {len(rest):,} may be decided with {budget}: the sweep's command with {retry}; "
                "some jobs need proofs of hours (docs/guide.md)."
            )
        return " ".join(parts)

    def effort_heading(self) -> str:
        return (
            "Search effort per outcome: nodes (positions expanded) and engine seconds over the rows a search "
            "decided ('searched'); rows settled by a proof with more cells had no search and are counted in "
            "'implied' above; undecided rows stopped at a budget"
        )

    def paired_heading(self) -> str:
        return (
            "The same deal with fewer cells: over the deals searched at both counts of a step, the median ratio "
            "of nodes and of moves (fewer cells over more; moves of deals won at both) and the share whose "
            "search (harder) or solution (longer) grew"
        )

    def shortest_heading(self) -> str:
        return (
            "Length of the won deals' lines in moves not to a foundation (a sequence move counts as one): "
            "'searched' lines came from a search for the shortest (--shortest), 'proved' are proved shortest, "
            "'bounded' have a proved lower bound (no line has fewer moves), whose mean is 'mean_bound': the "
            "deals' mean optimum lies between it and the lines' mean"
        )

    def growth_heading(self) -> str:
        return (
            "How much a deal's line grows when a cell is taken away, over the deals won at both counts: moves "
            "not to a foundation with fewer cells less with more; over the deals proved shortest at both the "
            "growth is the deals' own"
        )

    def has_shortest(self) -> bool:
        """Whether the rows count their moves not to a foundation (datasets written before
        the count was kept do not)."""
        return bool(len(self.shortest)) and bool(self.shortest["counted"].sum())

    def _paired_shown(self) -> pd.DataFrame:
        """paired() with the step and the pair of verdicts as short labels, shares as percentages."""
        shown = self.paired.copy()
        shown["step"] = [f"{a}->{b}" for a, b in zip(shown["from_cells"], shown["to_cells"])]
        shown["verdicts"] = [
            f"{VERDICT_WORDS[a]}, {VERDICT_WORDS[b]}" for a, b in zip(shown["from_status"], shown["to_status"])
        ]
        for share in ("harder_share", "longer_share"):
            shown[share] = [percent(x) for x in shown[share]]
        for ratio in ("nodes_ratio_median", "moves_ratio_median"):
            shown[ratio] = [_ratio(x) for x in shown[ratio]]
        return shown

    def terminal(self) -> str:
        """The report for a terminal: every table fits 100 columns."""
        moves = self.summary[list(MOVES_COLUMNS)].rename(columns=MOVES_COLUMNS)
        parts = [self.note, ""] if self.note else []
        parts += [
            "Verdicts per variant and cell count (the solvable share is of the decided jobs; 'implied': "
            "unsolvable rows settled by a proof with more cells, without a search)",
            format_table(_share(self.summary), VERDICT_COLUMNS),
            "",
            "Solutions of the solved deals (moves: a sequence move counts as one), and engine time",
            format_table(moves),
        ]
        if len(self.effort):
            parts += [
                "",
                self.effort_heading(),
                format_table(self.effort[list(EFFORT_COLUMNS)].rename(columns=EFFORT_COLUMNS)),
            ]
        if len(self.paired):
            parts += [
                "",
                self.paired_heading(),
                format_table(self._paired_shown()[list(PAIRED_HEADINGS)].rename(columns=PAIRED_HEADINGS)),
            ]
        if self.has_shortest():
            parts += ["", self.shortest_heading(), format_table(self.shortest)]
            if len(self.shortest_growth):
                growth = self.shortest_growth.assign(
                    longer_share=[percent(x) for x in self.shortest_growth["longer_share"]]
                )
                parts += ["", self.growth_heading(), format_table(growth.rename(columns=GROWTH_HEADINGS))]
        if self.summary["score_median"].notna().any():
            scores = self.summary[list(SCORE_COLUMNS)].rename(columns=SCORE_COLUMNS)
            parts += ["", f"Scores of the solved deals ({SCORING})", format_table(scores)]
        if len(self.transitions):
            parts += ["", "Deals won with more cells and lost with fewer", format_table(self.transitions)]
        if len(self.takeback):
            parts += ["", "Take-back against the same rules without it (jobs decided both ways)"]
            parts += self.takeback_lines(markdown=False)
        parts += [
            "",
            "Fewest cells that win each deal (upper bound when the count below was not run or not decided)",
            format_table(shown_distribution(self.min_cells_distribution())),
        ]
        for by, what in (("nodes", "nodes searched"), ("moves", "solution length")):
            top = self.hardest[self.hardest["by"] == by].groupby(["variant", "cells"]).head(self.top)
            parts += [
                "",
                f"Hardest solved deals by {what} (top {self.top} per cell count; --top N for more)",
                format_table(top, ["variant", "cells", "deal", "nodes", "moves", "seconds"]),
            ]
        if len(self.undecided):
            shown = self.undecided.head(UNDECIDED_SHOWN)
            more = len(self.undecided) - len(shown)
            parts += [
                "",
                f"Undecided jobs ({len(self.undecided):,}"
                + (f"; the first {len(shown)} here, all in undecided.csv with --out" if more else "")
                + "). "
                + self.undecided_advice(),
                format_table(shown),
            ]
        if len(self.published):
            short = self.published.rename(columns=PUBLISHED_HEADINGS)
            parts += [
                "",
                "Deals 1..32,000 against the published counts ('so far': the undecided deals "
                "may still make up the difference)",
                format_table(short),
            ]
        problems = self.problems()
        if problems:
            parts += [""] + [f"!!! {p}" for p in problems]
        # Headings fold at 100 columns; the tables are narrower than that.
        return "\n".join(textwrap.fill(p, 100) if p and "\n" not in p else p for p in parts)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables `write` saves as CSV and Parquet, by file name (docs/guide.md
        describes their columns)."""
        return {
            "summary": self.summary,
            "effort": self.effort,
            "paired": self.paired,
            "shortest": self.shortest,
            "shortest_growth": self.shortest_growth,
            "transitions": self.transitions,
            "lost_deals": self.lost,
            "min_cells": self.min_cells,
            "min_cells_distribution": self.min_cells_distribution(),
            "hardest": self.hardest,
            "published_comparison": self.published,
            "undecided": self.undecided,
            "takeback": self.takeback,
            "takeback_gains": self.gained,
        }

    def write(self, out: str | os.PathLike, source: str) -> list[Path]:
        """Writes report.md, the tables as CSV and Parquet, and the plots into `out`."""
        from . import plots

        out = report_directory(out)
        written = []
        for name, frame in self.tables().items():
            if name not in ALWAYS_WRITTEN and not len(frame):
                # A table with nothing in it (no take-back rows, no undecided job, a range
                # short of 1..32,000) is no file at all, and none left from an earlier report.
                for suffix in (".csv", ".parquet"):
                    (out / f"{name}{suffix}").unlink(missing_ok=True)
                continue
            for suffix, writer in (
                (".csv", lambda f, p: f.to_csv(p, index=False)),
                (".parquet", lambda f, p: _typed(f).to_parquet(p, index=False)),
            ):
                written.append(write_atomically(out / f"{name}{suffix}", functools.partial(writer, frame)))
        images = plots.draw_all(self, out)
        written += images
        markdown = self.markdown(source, [p.name for p in images])
        written.append(write_atomically(out / "report.md", lambda p: p.write_text(markdown, encoding="utf-8")))
        return written

    def markdown(self, source: str, images: list[str]) -> str:
        def image(name: str, title: str) -> list[str]:
            return [f"![{title}]({name})", ""] if name in images else []

        md = [f"# FreeCell difficulty report: {source}", ""] + ([self.note, ""] if self.note else [])
        problems = self.problems()
        if problems:
            md += ["> **Warning.** " + p for p in problems] + [""]
        md += [
            "## Summary per cell count",
            "",
            "Moves are over solved deals (a sequence move counts as one; card moves expand them). "
            f"Scores are the solutions' ({SCORING}). "
            "The solvable share is over decided deals; `implied` counts the unsolvable rows settled by a proof "
            "with more cells, without a search. Time is engine time in seconds.",
            "",
            format_table(_share(self.summary), SUMMARY_COLUMNS, markdown=True),
            "",
        ]
        md += image("solvable_share.png", "Solvable share by free cells")
        if len(self.effort):
            md += [
                "## Search effort by outcome",
                "",
                self.effort_heading() + ".",
                "",
                format_table(self.effort, markdown=True),
                "",
            ]
            md += image("nodes.png", "Nodes searched by free cells, won and lost")
            md += image("nodes_ecdf.png", "Distribution of nodes searched, by cell count and outcome")
        if len(self.paired):
            shown = self._paired_shown().drop(columns=["step", "verdicts"])
            md += [
                "## The same deal with fewer cells",
                "",
                self.paired_heading() + ".",
                "",
                format_table(shown, markdown=True),
                "",
            ]
        if self.has_shortest():
            md += [
                "## Shortest lines",
                "",
                self.shortest_heading() + ".",
                "",
                format_table(self.shortest, markdown=True),
                "",
            ]
            md += image("shortest.png", "Lines in moves not to a foundation, by free cells")
            if len(self.shortest_growth):
                growth = self.shortest_growth.assign(
                    longer_share=[percent(x) for x in self.shortest_growth["longer_share"]]
                )
                md += [self.growth_heading() + ".", "", format_table(growth, markdown=True), ""]
        if len(self.takeback):
            md += [
                "## Take-back against the same rules without it",
                "",
                "Deals decided both with and without foundation take-back, per cell count: how many "
                "each rule wins, and how many only take-back wins. `anomalies` counts deals won "
                "without take-back but lost with it, which would mean a wrong verdict.",
                "",
            ]
            md += self.takeback_lines(markdown=True) + [""]
            md += image("takeback.png", "Take-back against the classic rules")
        if len(self.published):
            md += [
                "## Against the published counts (deals 1..32,000)",
                "",
                format_table(self.published, markdown=True),
                "",
            ]
        if len(self.transitions):
            md += [
                "## Deals lost as cells are taken away",
                "",
                "For each step between cell counts run, the deals decided at both counts, those won "
                "with more cells, and those lost with fewer. `anomalies` counts deals won with fewer "
                "cells but lost with more, which would mean a wrong verdict.",
                "",
                format_table(self.transitions, markdown=True),
                "",
            ]
            if len(self.lost):
                md += [f"The deals lost at each step (all {len(self.lost):,} are in lost_deals.csv):", ""]
                for (variant, won, lost), group in self.lost.groupby(["variant", "won_with", "lost_with"], sort=False):
                    what = f"{variant}, won with {won} cells and lost with {lost}"
                    md.append("- " + _deal_list(what, group["deal"], 200, "lost_deals.csv"))
                md.append("")
        md += [
            "## Fewest cells needed",
            "",
            "For each deal, the fewest free cells among those run that win it (`min_cells.csv` has "
            "every deal). It is exact when the count one below was run and proved unsolvable, or "
            "when it is the fewest the game can be played with (0, or the cells its deal fills), "
            "otherwise an upper bound.",
            "",
            format_table(shown_distribution(self.min_cells_distribution()), markdown=True),
            "",
        ]
        md += image("moves.png", "Solution length by free cells")
        md += image("min_cells.png", "Fewest free cells needed")
        md += ["## Hardest deals", "", "Solved deals with the most nodes searched, and with the longest solutions.", ""]
        for by in ("nodes", "moves"):
            part = self.hardest[self.hardest["by"] == by]
            md += [
                f"### By {by}",
                "",
                format_table(
                    part, ["variant", "cells", "deal", "nodes", "moves", "card_moves", "seconds"], markdown=True
                ),
                "",
            ]
        if len(self.undecided):
            shown = self.undecided.head(UNDECIDED_LISTED)
            md += [
                "## Undecided jobs",
                "",
                (f"{len(self.undecided):,} jobs have" if len(self.undecided) != 1 else "1 job has")
                + " no verdict: a budget ran out (unknown) or the search failed (error)"
                + (
                    f"; the first {len(shown):,} are here, all in undecided.csv"
                    if len(shown) < len(self.undecided)
                    else ""
                )
                + ". "
                + self.undecided_advice(),
                "",
                format_table(shown, markdown=True),
                "",
            ]
        return "\n".join(md)
