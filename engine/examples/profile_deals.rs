//! Solves deals given as text files for profiling: `cargo run --release --example profile_deals FILE...`
//! (CELLS=k sets the free cells, TAKEBACK=1 plays the take-back rule, PER_DEAL=1 prints
//! each deal's verdict, nodes and seconds, MAX_SECONDS=s gives each deal at most s seconds,
//! MAX_MEMORY=bytes its memory, and LAYERED=DIR proves it with a layered proof alone,
//! spilling under DIR).
use fcanalyze_engine::card::Card;
use fcanalyze_engine::position::{Place, Position};
use fcanalyze_engine::search::{prove_layered, solve, Budget, Spill};
use fcanalyze_engine::variant::Variant;

fn main() {
    let cells = std::env::var("CELLS").ok().and_then(|c| c.parse().ok()).unwrap_or(4);
    let takeback = std::env::var("TAKEBACK").is_ok_and(|v| v == "1");
    let per_deal_lines = std::env::var("PER_DEAL").is_ok_and(|v| v == "1");
    let max_seconds = std::env::var("MAX_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(f64::INFINITY);
    let max_memory =
        std::env::var("MAX_MEMORY").ok().and_then(|s| s.parse().ok()).unwrap_or(Budget::default().max_memory);
    let budget = Budget { max_seconds, max_memory, ..Budget::default() };
    let layered = std::env::var("LAYERED").ok().map(|dir| Spill {
        dir: dir.into(),
        threads: 1,
        max_bytes: u64::MAX,
        keep_free: 0,
    });
    let rules = Variant { takeback, ..Variant::FREECELL.with_cells(cells) };
    let (mut nodes, mut deals, mut seconds) = (0, 0, 0.0);
    let mut per_deal = vec![];
    // The won deals, and their lines' moves not to a foundation.
    let (mut won, mut not_home) = (0usize, 0usize);
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable board");
        for board in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
            let cols: Vec<Vec<u8>> = board
                .lines()
                .map(|l| l.split_whitespace().map(|t| Card::parse(t).expect("card").index()).collect())
                .collect();
            let s = Position::new(&rules, &cols, &vec![None; cells], [0; 4]).expect("layout");
            let out = match &layered {
                Some(spill) => prove_layered(&s, &rules, budget, spill, &mut || false),
                None => solve(&s, &rules, budget, &mut || false),
            };
            if per_deal_lines {
                println!(
                    "{} {:?} {} nodes {} states {:.3} s peak memory {} disk {}",
                    deals + 1,
                    out.status,
                    out.nodes,
                    out.states,
                    out.seconds,
                    out.peak_memory,
                    out.peak_disk
                );
            }
            if !out.solution.is_empty() {
                won += 1;
                not_home += out.solution.iter().filter(|m| m.to != Place::Home).count();
            }
            nodes += out.nodes;
            deals += 1;
            seconds += out.seconds;
            per_deal.push(out.nodes);
        }
    }
    println!("{won} won, lines {:.3} moves not to a foundation on average", not_home as f64 / won.max(1) as f64);
    per_deal.sort_unstable();
    let q = |f: f64| per_deal[((per_deal.len() as f64 * f) as usize).min(per_deal.len() - 1)];
    println!(
        "{deals} deals, {nodes} nodes, {seconds:.2} s; nodes median {} p90 {} p99 {} max {}; top 1% sum {}",
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        per_deal[per_deal.len() * 99 / 100..].iter().sum::<u64>()
    );
}
