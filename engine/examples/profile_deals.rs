//! Solves deals given as text files for profiling: `cargo run --release --example profile_deals FILE...`
use fcanalyze_engine::card::Card;
use fcanalyze_engine::rules::Rules;
use fcanalyze_engine::search::{solve, Budget};
use fcanalyze_engine::state::State;

fn main() {
    let rules = Rules::FREECELL;
    let mut nodes = 0;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable board");
        for board in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
            let cols: Vec<Vec<u8>> = board
                .lines()
                .map(|l| l.split_whitespace().map(|t| Card::parse(t).expect("card").index()).collect())
                .collect();
            let s = State::new(&rules, &cols, &[None; 4], [0; 4]).expect("layout");
            nodes += solve(&s, &rules, Budget::default(), &mut || false).nodes;
        }
    }
    println!("{nodes} nodes");
}
