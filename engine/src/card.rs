//! Cards as bytes 0..52, in the order of a fresh Microsoft deck (AC AD AH AS 2C ...).

use std::fmt;

/// Suits in deck order; hearts and diamonds are red.
pub const SUITS: [char; 4] = ['C', 'D', 'H', 'S'];
const RANKS: [char; 13] = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];

/// One card: `(rank - 1) * 4 + suit`, so the Python side and the engine agree on numbers.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Card(u8);

impl Card {
    pub const COUNT: usize = 52;

    /// The card of `rank` (1 = ace .. 13 = king) and `suit` (0..4, CDHS).
    pub fn new(rank: u8, suit: u8) -> Card {
        debug_assert!((1..=13).contains(&rank) && suit < 4);
        Card((rank - 1) * 4 + suit)
    }

    /// The card numbered `index` (0..52), or None.
    pub fn from_index(index: u8) -> Option<Card> {
        (usize::from(index) < Card::COUNT).then_some(Card(index))
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn rank(self) -> u8 {
        self.0 / 4 + 1
    }

    pub fn suit(self) -> u8 {
        self.0 % 4
    }

    pub fn is_red(self) -> bool {
        matches!(self.suit(), 1 | 2)
    }

    /// Parses `AS`, `TD`, `10D`, `kh`.
    pub fn parse(text: &str) -> Option<Card> {
        if !text.is_ascii() {
            return None;
        }
        let upper = text.to_ascii_uppercase();
        let (rank_text, suit_text) = upper.split_at(upper.len().checked_sub(1)?);
        let suit = SUITS.iter().position(|&s| suit_text.starts_with(s))?;
        let rank = match rank_text {
            "10" => 10,
            r if r.len() == 1 => RANKS.iter().position(|&c| r.starts_with(c))? + 1,
            _ => return None,
        };
        Some(Card::new(rank as u8, suit as u8))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", RANKS[usize::from(self.rank() - 1)], SUITS[usize::from(self.suit())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_through_text() {
        for i in 0..52u8 {
            let card = Card::from_index(i).unwrap();
            assert_eq!(Card::parse(&card.to_string()), Some(card));
        }
        assert_eq!(Card::from_index(52), None);
    }

    #[test]
    fn deck_order_and_colours_match_the_microsoft_deck() {
        assert_eq!(Card::from_index(0).unwrap().to_string(), "AC");
        assert_eq!(Card::from_index(3).unwrap().to_string(), "AS");
        assert_eq!(Card::from_index(4).unwrap().to_string(), "2C");
        assert_eq!(Card::from_index(51).unwrap().to_string(), "KS");
        assert!(Card::parse("QH").unwrap().is_red());
        assert!(Card::parse("5d").unwrap().is_red());
        assert!(!Card::parse("JC").unwrap().is_red());
        assert!(!Card::parse("2S").unwrap().is_red());
    }

    #[test]
    fn tens_parse_both_ways_and_junk_is_rejected() {
        assert_eq!(Card::parse("10H"), Card::parse("TH"));
        assert_eq!(Card::parse("TH").unwrap().rank(), 10);
        for junk in ["", "H", "1H", "11S", "ZS", "AX", "KSS", "é"] {
            assert_eq!(Card::parse(junk), None, "{junk:?} parsed");
        }
    }
}
