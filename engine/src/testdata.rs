//! Layouts shared by the engine's unit tests.

use crate::card::Card;

/// Microsoft deal 1, one column a line.
pub const MS1: &str = "JD KD 2S 4C 3S 6D 6S\n2D KC KS 5C TD 8S 9C\n9H 9S 9D TS 4S 8D 2H\n\
                       JC 5S QD QH TH QS 6H\n5D AD JS 4H 8H 6C\n7H QC AS AC 2C 3D\n\
                       7C KH AH 4D JH 8C\n5H 3H 3C 7S 7D TC";

/// Microsoft deal 11982, the one 4-cell deal of 1..32,000 that cannot be won.
pub const MS11982: &str = "AH 3D KD JC 6C JD KC\nAS 3H 6H 5D 2C 7D 8D\n4H QS 5S 5C TH 8H 2S\n\
                           AC QC 4D 8C QH 9C 3S\n2D 8S 9H 9D 6D 2H\n6S 7H JH TD TC QD\n\
                           TS AD 9S KH 4S 4C\nJS KS 3C 7C 7S 5H";

/// Card numbers per column from text like `MS1`.
pub fn columns(text: &str) -> Vec<Vec<u8>> {
    text.lines().map(|l| l.split_whitespace().map(|t| Card::parse(t).expect("a card").index()).collect()).collect()
}
