//! A FreeCell position and moves on it: building it, playing and taking back moves, and the safe moves played at once.
//!
//! One file per part beside this one: `fingerprint` (the canonical 128-bit fingerprint and
//! the cheap fingerprints of a position's children), `packed` (a position in 74 bytes),
//! `loose` (the loose card a proof puts back).

mod fingerprint;
mod loose;
mod packed;

use std::fmt;

use crate::card::Card;
use crate::variant::{Variant, MAX_CELLS, MAX_COLUMNS};

pub(crate) use fingerprint::fmix64;
pub use fingerprint::Hashes;
pub use loose::ColumnEnds;
pub use packed::PackedPosition;

/// Deepest a column can get: 13 dealt cards (4 columns) plus a run of 12 on top. A
/// board whose columns could grow past it is refused when the position is built.
pub const MAX_HEIGHT: usize = 26;
const NO_CARD: u8 = 0xFF;

/// A place cards move between: a column, a free cell, or the foundations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Place {
    Column(u8),
    Cell(u8),
    /// The foundations, as where a card goes: its suit says which.
    Home,
    /// One foundation (a suit, 0..4 in CDHS order), as where a card is taken back
    /// from under the take-back rule.
    Foundation(u8),
}

/// A move of `count` cards (more than one only between columns).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Place,
    pub to: Place,
    pub count: u8,
}

impl Move {
    pub fn new(from: Place, to: Place, count: u8) -> Move {
        Move { from, to, count }
    }
}

/// A move as played, with the card that led it (the deepest card moved), which is what
/// undoing a foundation move needs to know.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Played {
    pub m: Move,
    pub card: Card,
}

/// Standard notation: columns 1-9 then 0, cells a-g then i, `h` the foundations. A card
/// taken back off a foundation is `h` and the suit's letter: `hs3` takes the top spade
/// back onto column 3, `hda` the top diamond into cell a.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn symbol(f: &mut fmt::Formatter<'_>, p: Place) -> fmt::Result {
            match p {
                Place::Column(i) => write!(f, "{}", b"1234567890"[usize::from(i)] as char),
                Place::Cell(i) => write!(f, "{}", b"abcdefgi"[usize::from(i)] as char),
                Place::Home => write!(f, "h"),
                Place::Foundation(suit) => write!(f, "h{}", b"cdhs"[usize::from(suit)] as char),
            }
        }
        symbol(f, self.from)?;
        symbol(f, self.to)?;
        if self.count > 1 {
            write!(f, "v{:x}", self.count)?;
        }
        Ok(())
    }
}

/// Cards in play, in their real columns and cell slots (which the solution refers to).
/// Foundations are implied, but kept as counts for speed.
#[derive(Clone, Debug)]
pub struct Position {
    cols: [[u8; MAX_HEIGHT]; MAX_COLUMNS],
    lens: [u8; MAX_COLUMNS],
    cells: [u8; MAX_CELLS],
    home: [u8; 4],
}

/// Equal when the same cards are in the same places (bytes past a column's end are stale).
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.lens == other.lens
            && self.cells == other.cells
            && self.home == other.home
            && (0..MAX_COLUMNS).all(|i| self.column(i) == other.column(i))
    }
}

impl Eq for Position {}

/// Why a position cannot be built.
#[derive(Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl Position {
    /// A position from card numbers (0..52); `cells` entries None are empty.
    pub fn new(
        rules: &Variant,
        columns: &[Vec<u8>],
        cells: &[Option<u8>],
        home: [u8; 4],
    ) -> Result<Position, LayoutError> {
        let err = |m: String| Err(LayoutError(m));
        if columns.len() > rules.columns || rules.columns > MAX_COLUMNS {
            return err(format!("{} columns, the rules allow {}", columns.len(), rules.columns));
        }
        if cells.iter().flatten().count() > rules.cells || rules.cells > MAX_CELLS {
            return err(format!("more cards than the {} free cells", rules.cells));
        }
        let mut state = Position {
            cols: [[NO_CARD; MAX_HEIGHT]; MAX_COLUMNS],
            lens: [0; MAX_COLUMNS],
            cells: [NO_CARD; MAX_CELLS],
            home,
        };
        let mut seen = [false; Card::COUNT];
        let mut note = |c: u8| -> Result<(), LayoutError> {
            let card = Card::from_index(c).ok_or_else(|| LayoutError(format!("no card number {c}")))?;
            if std::mem::replace(&mut seen[usize::from(c)], true) {
                return Err(LayoutError(format!("{card} appears twice")));
            }
            if card.rank() <= home[usize::from(card.suit())] {
                return Err(LayoutError(format!("{card} is in play and home")));
            }
            Ok(())
        };
        for (i, col) in columns.iter().enumerate() {
            // Cards only ever land on a column's last card, each one rank below the one
            // before: a column topped by a card of rank r grows by r - 1 cards at most.
            let growth = col.last().and_then(|&c| Card::from_index(c)).map_or(0, |c| usize::from(c.rank()) - 1);
            if col.len() + growth > MAX_HEIGHT {
                return err(format!(
                    "column {} holds {} cards and could grow to {}; columns may grow to {MAX_HEIGHT} cards at most",
                    i + 1,
                    col.len(),
                    col.len() + growth
                ));
            }
            for &c in col {
                note(c)?;
            }
            state.cols[i][..col.len()].copy_from_slice(col);
            state.lens[i] = col.len() as u8;
        }
        for (slot, c) in cells.iter().enumerate().filter_map(|(i, c)| c.map(|c| (i, c))) {
            if slot >= rules.cells {
                // Pack cards written in higher slots into the free ones below.
                let free = state.cells[..rules.cells].iter().position(|&x| x == NO_CARD);
                state.cells[free.expect("counted above")] = c;
            } else {
                state.cells[slot] = c;
            }
            note(c)?;
        }
        let in_play = seen.iter().filter(|&&s| s).count();
        let at_home: usize = home.iter().map(|&h| usize::from(h)).sum();
        if home.iter().any(|&h| h > 13) || in_play + at_home != Card::COUNT {
            return err(format!("{} cards in play and {} home, not 52", in_play, at_home));
        }
        Ok(state)
    }

    /// Empties the position but for `home`, for `push_unchecked` and `set_cell_unchecked`
    /// to fill: a layered proof rebuilds its own entries so, millions of them, without
    /// `new`'s checks (which are for layouts from outside) or its allocations.
    pub(crate) fn reset_to(&mut self, home: [u8; 4]) {
        self.lens = [0; MAX_COLUMNS];
        self.cells = [NO_CARD; MAX_CELLS];
        self.home = home;
    }

    pub(crate) fn push_unchecked(&mut self, col: usize, c: u8) {
        let n = usize::from(self.lens[col]);
        self.cols[col][n] = c;
        self.lens[col] += 1;
    }

    pub(crate) fn set_cell_unchecked(&mut self, slot: usize, c: u8) {
        self.cells[slot] = c;
    }

    #[inline]
    pub fn len(&self, col: usize) -> usize {
        usize::from(self.lens[col])
    }

    #[inline]
    pub fn column(&self, col: usize) -> &[u8] {
        &self.cols[col][..self.len(col)]
    }

    #[inline]
    pub fn top(&self, col: usize) -> Option<Card> {
        self.column(col).last().map(|&c| Card::from_index(c).unwrap_or_else(|| unreachable!()))
    }

    #[inline]
    pub fn cell(&self, slot: usize) -> Option<Card> {
        let c = self.cells[slot];
        (c != NO_CARD).then(|| card(c))
    }

    pub fn home(&self) -> [u8; 4] {
        self.home
    }

    pub fn cards_home(&self) -> usize {
        self.home.iter().map(|&h| usize::from(h)).sum()
    }

    pub fn is_won(&self) -> bool {
        self.cards_home() == Card::COUNT
    }

    #[inline]
    pub fn can_go_home(&self, c: Card) -> bool {
        self.home[usize::from(c.suit())] + 1 == c.rank()
    }

    /// Whether sending `c` home can never lose a winnable game. For same-suit building
    /// that is always so: the one card that fits on `c` is home before `c` can go. For
    /// alternating colours it holds when every card that fits on `c` is *clear*: home,
    /// or next to go home with every card that fits on it clear in turn. Then whatever
    /// a win does with `c` in play, the same win with `c` home sends each card it would
    /// have put on `c` home instead (docs/correctness.md has the proof). Worked out for
    /// a card of rank r, with a and b the foundations of the other colour and m that of
    /// the other suit of its colour: r <= 2, or a, b >= r - 1, or a, b >= r - 2 and
    /// m >= r - 3.
    ///
    /// Under the take-back rule cards home can come back, and the proof above fails
    /// (the cards it sends home in place of the ones put on `c` may be wanted back).
    /// There a card is safe when the cards that fit on it are home and *settled*
    /// (`settled_heights`): docs/correctness.md proves that a winnable position has a
    /// win that never takes a settled card back, and with `c` home the settled cards
    /// and `c` are still such a set.
    #[inline]
    pub fn safe_to_foundation(&self, rules: &Variant, c: Card) -> bool {
        if !self.can_go_home(c) {
            return false;
        }
        let r = c.rank();
        if rules.same_suit {
            return true;
        }
        if rules.takeback {
            let settled = self.settled_heights(rules);
            let (o1, o2) = other_colour(c.suit());
            return settled[o1] + 1 >= r && settled[o2] + 1 >= r;
        }
        if r <= 2 {
            return true;
        }
        let (o1, o2) = other_colour(c.suit());
        let mate = usize::from(c.suit() ^ 3); // C<->S, D<->H: the other suit of its colour
        let (a, b, m) = (self.home[o1], self.home[o2], self.home[mate]);
        (a >= r - 1 && b >= r - 1) || (a >= r - 2 && b >= r - 2 && m + 3 >= r)
    }

    /// The cards at the ends of the columns, a bit each (bit c for card number c).
    #[inline]
    pub fn tops(&self, rules: &Variant) -> u64 {
        (0..rules.columns).filter_map(|i| self.column(i).last()).fold(0, |bits, &c| bits | 1 << c)
    }

    /// How far up each foundation the cards are *settled* (`settled_heights`).
    pub fn settled_heights(&self, rules: &Variant) -> [u8; 4] {
        settled_heights(self.home, rules)
    }

    pub fn first_empty_cell(&self, rules: &Variant) -> Option<usize> {
        self.cells[..rules.cells].iter().position(|&c| c == NO_CARD)
    }

    pub fn empty_cells(&self, rules: &Variant) -> usize {
        self.cells[..rules.cells].iter().filter(|&&c| c == NO_CARD).count()
    }

    pub fn empty_columns(&self, rules: &Variant) -> usize {
        self.lens[..rules.columns].iter().filter(|&&l| l == 0).count()
    }

    /// How many cards at the end of `col` form a run that may move together, counting
    /// no further than `most`.
    pub fn run_length_up_to(&self, rules: &Variant, col: usize, most: usize) -> usize {
        run_length_up_to(rules, self.column(col), most)
    }

    /// Carries out `m` without checking it: the caller generated it as legal.
    /// `undo` of what `play(m)` returns gives the position back.
    pub fn apply(&mut self, m: Move) {
        let n = usize::from(m.count);
        let mut moving = [NO_CARD; 13];
        match m.from {
            Place::Column(i) => {
                let i = usize::from(i);
                let len = self.len(i);
                moving[..n].copy_from_slice(&self.cols[i][len - n..len]);
                self.lens[i] -= m.count;
            }
            Place::Cell(i) => {
                moving[0] = std::mem::replace(&mut self.cells[usize::from(i)], NO_CARD);
            }
            Place::Foundation(suit) => {
                moving[0] = self.foundation_top(suit).index();
                self.home[usize::from(suit)] -= 1;
            }
            Place::Home => unreachable!("a card is taken back from one foundation, Place::Foundation"),
        }
        self.put(m.to, &moving[..n]);
    }

    fn put(&mut self, to: Place, cards: &[u8]) {
        match to {
            Place::Column(i) => {
                let i = usize::from(i);
                let len = self.len(i);
                self.cols[i][len..len + cards.len()].copy_from_slice(cards);
                self.lens[i] += cards.len() as u8;
            }
            Place::Cell(i) => self.cells[usize::from(i)] = cards[0],
            Place::Home | Place::Foundation(_) => self.home[usize::from(card(cards[0]).suit())] += 1,
        }
    }

    /// The top card of foundation `suit`, which must hold one.
    fn foundation_top(&self, suit: u8) -> Card {
        card((self.home[usize::from(suit)] - 1) * 4 + suit)
    }

    /// Plays a generated move and says which card led it.
    pub fn play(&mut self, m: Move) -> Played {
        let card = self.lead_card(m);
        self.apply(m);
        Played { m, card }
    }

    /// The deepest card `m` would move.
    pub fn lead_card(&self, m: Move) -> Card {
        match m.from {
            Place::Column(i) => {
                let i = usize::from(i);
                card(self.cols[i][self.len(i) - usize::from(m.count)])
            }
            Place::Cell(i) => card(self.cells[usize::from(i)]),
            Place::Foundation(suit) => self.foundation_top(suit),
            Place::Home => unreachable!("a card is taken back from one foundation, Place::Foundation"),
        }
    }

    /// Undoes `p`, the last move played onto the place it went to.
    pub fn undo(&mut self, p: Played) {
        let n = usize::from(p.m.count);
        let mut moving = [NO_CARD; 13];
        match p.m.to {
            Place::Column(i) => {
                let i = usize::from(i);
                let len = self.len(i);
                moving[..n].copy_from_slice(&self.cols[i][len - n..len]);
                self.lens[i] -= p.m.count;
            }
            Place::Cell(i) => moving[0] = std::mem::replace(&mut self.cells[usize::from(i)], NO_CARD),
            Place::Home => {
                self.home[usize::from(p.card.suit())] -= 1;
                moving[0] = p.card.index();
            }
            Place::Foundation(_) => unreachable!("cards are taken back from foundations, never put on one"),
        }
        self.put(p.m.from, &moving[..n]);
    }

    /// Plays every safe foundation move, repeatedly, appending them to `played`.
    pub fn autoplay(&mut self, rules: &Variant, played: &mut Vec<Played>) {
        loop {
            let mut moved = false;
            for i in 0..rules.columns {
                while let Some(c) = self.top(i) {
                    if !self.safe_to_foundation(rules, c) {
                        break;
                    }
                    played.push(self.play(Move::new(Place::Column(i as u8), Place::Home, 1)));
                    moved = true;
                }
            }
            for slot in 0..rules.cells {
                if let Some(c) = self.cell(slot) {
                    if self.safe_to_foundation(rules, c) {
                        played.push(self.play(Move::new(Place::Cell(slot as u8), Place::Home, 1)));
                        moved = true;
                    }
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// `autoplay` after `m`, in a position that had no safe move before `m`. Unless `m`
    /// sent a card home (which can make any card safe), only the card `m` uncovered can
    /// have become safe, so the full scan is needed only then.
    pub fn autoplay_after(&mut self, rules: &Variant, m: Move, played: &mut Vec<Played>) {
        let uncovered = match (m.from, m.to) {
            (_, Place::Home) => return self.autoplay(rules, played),
            (Place::Column(i), _) => self.top(usize::from(i)),
            _ => None,
        };
        if uncovered.is_some_and(|c| self.safe_to_foundation(rules, c)) {
            self.autoplay(rules, played);
        }
    }
}

/// How far up each foundation, with `home` cards home in each, the cards are
/// *settled*: no win ever needs them back under the take-back rule. The settled cards
/// are the largest set of cards home that holds the bottom of each foundation and,
/// with every card, the cards that fit on it. For alternating colours that is, for
/// each suit, its height, but at most one rank above either suit of the other colour
/// (whose cards fit on its cards) and two above the other suit of its colour (whose
/// cards fit on those); a unit test holds this against the definition. Under
/// same-suit building the only card that fits on a card home is the one below it, so
/// everything home is settled. docs/correctness.md proves that such cards never need
/// to be taken back.
pub fn settled_heights(home: [u8; 4], rules: &Variant) -> [u8; 4] {
    if rules.same_suit {
        return home;
    }
    std::array::from_fn(|suit| {
        let (o1, o2) = other_colour(suit as u8);
        let mate = suit ^ 3;
        home[suit].min(home[o1] + 1).min(home[o2] + 1).min(home[mate] + 2)
    })
}

/// How many cards at the end of `cards` form a run that may move together.
#[inline]
pub fn run_length(rules: &Variant, cards: &[u8]) -> usize {
    run_length_up_to(rules, cards, cards.len())
}

/// `run_length`, counting no further than `most`.
#[inline]
fn run_length_up_to(rules: &Variant, cards: &[u8], most: usize) -> usize {
    let most = most.min(cards.len());
    let mut n = most.min(1);
    while n < most && rules.fits_number(cards[cards.len() - n], cards[cards.len() - n - 1]) {
        n += 1;
    }
    n
}

#[inline]
pub(crate) fn card(c: u8) -> Card {
    Card::from_index(c).unwrap_or_else(|| unreachable!("no card {c}"))
}

/// The two suits of the other colour, suits in CDHS order (clubs and spades black,
/// diamonds and hearts red).
#[inline]
fn other_colour(suit: u8) -> (usize, usize) {
    if suit == 0 || suit == 3 {
        (1, 2)
    } else {
        (0, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{columns, MS1};

    fn ms1() -> Position {
        Position::new(&Variant::FREECELL, &columns(MS1), &[None; 4], [0; 4]).unwrap()
    }

    #[test]
    fn layouts_round_trip_and_bad_ones_are_refused() {
        let s = ms1();
        let cols = columns(MS1);
        for (i, col) in cols.iter().enumerate() {
            assert_eq!(s.column(i), &col[..]);
        }
        let mut dup = cols.clone();
        dup[0][0] = dup[1][0];
        assert!(Position::new(&Variant::FREECELL, &dup, &[None; 4], [0; 4]).unwrap_err().0.contains("twice"));
        let mut short = cols.clone();
        short[7].pop();
        assert!(Position::new(&Variant::FREECELL, &short, &[None; 4], [0; 4]).is_err());
        assert!(Position::new(&Variant::FREECELL, &cols, &[None; 4], [1, 0, 0, 0]).is_err());
    }

    #[test]
    fn play_then_undo_gives_the_position_back() {
        let mut s = ms1();
        let before = s.clone();
        for m in [
            Move::new(Place::Column(4), Place::Cell(0), 1),
            Move::new(Place::Column(0), Place::Column(3), 1),
            Move::new(Place::Column(1), Place::Column(2), 2),
        ] {
            let p = s.play(m);
            assert_ne!(s, before);
            s.undo(p);
            assert_eq!(s, before);
        }
        // A foundation move: 6C to a cell, then AS... use a cell card sent home.
        let p1 = s.play(Move::new(Place::Column(5), Place::Cell(0), 1)); // 3D
        let p2 = s.play(Move::new(Place::Column(5), Place::Cell(1), 1)); // 2C
        let p3 = s.play(Move::new(Place::Column(5), Place::Home, 1)); // AC
        assert_eq!(p3.card.to_string(), "AC");
        assert_eq!(s.home(), [1, 0, 0, 0]);
        for p in [p3, p2, p1] {
            s.undo(p);
        }
        assert_eq!(s, before);
    }

    /// The definition the safe rule is proved from, written out recursively: a card is
    /// clear when it is home, or next to go home with every card that fits on it clear.
    fn clear(rules: &Variant, home: &[u8; 4], c: Card) -> bool {
        let h = home[usize::from(c.suit())];
        h >= c.rank() || (h + 1 == c.rank() && children(rules, c).into_iter().all(|x| clear(rules, home, x)))
    }

    fn children(rules: &Variant, c: Card) -> Vec<Card> {
        (0..52u8).map(|i| Card::from_index(i).unwrap()).filter(|&x| rules.fits(x, c)).collect()
    }

    #[test]
    fn safe_moves_are_exactly_those_whose_children_are_all_clear() {
        let c = |t: &str| Card::parse(t).unwrap();
        for rules in [Variant::FREECELL, Variant { same_suit: true, ..Variant::FREECELL }] {
            let mut s = ms1();
            let mut checked = 0;
            for code in 0..14u32.pow(4) {
                let home = [0, 1, 2, 3].map(|i| (code / 14u32.pow(i) % 14) as u8);
                s.home = home; // the layout is not checked here, only the foundations matter
                for i in 0..52u8 {
                    let card = Card::from_index(i).unwrap();
                    let expected =
                        s.can_go_home(card) && children(&rules, card).into_iter().all(|x| clear(&rules, &home, x));
                    assert_eq!(s.safe_to_foundation(&rules, card), expected, "{card} with home {home:?}");
                    checked += usize::from(expected);
                }
            }
            assert!(checked > 10_000);
        }
        // The cases by name: rank 2 always; the other colour one below; or two below with
        // the other suit of the same colour three below.
        let mut s = ms1();
        s.home = [1, 1, 0, 1];
        assert!(s.safe_to_foundation(&Variant::FREECELL, c("2C")));
        s.home = [4, 4, 4, 3];
        assert!(s.safe_to_foundation(&Variant::FREECELL, c("5H"))); // S 3 < 5-1: the basic rule alone says no
        s.home = [3, 4, 4, 3];
        assert!(s.safe_to_foundation(&Variant::FREECELL, c("5H"))); // C, S 3 = 5-2 and D 4 >= 5-3
        s.home = [3, 1, 4, 3];
        assert!(!s.safe_to_foundation(&Variant::FREECELL, c("5H"))); // D 1 < 5-3: 3D might need 4C or 4S
        s.home = [2, 4, 4, 3];
        assert!(!s.safe_to_foundation(&Variant::FREECELL, c("5H"))); // C 2 < 5-2
    }

    /// The settled cards by their definition: the largest set of cards home holding the
    /// bottom of each foundation and every card that fits on each of its cards, found
    /// by striking out, until none is left, any card whose suit is struck below it or
    /// a card fitting on which is not in the set.
    fn settled_by_definition(rules: &Variant, home: [u8; 4]) -> [u8; 4] {
        let mut set: Vec<Card> = (0..52u8)
            .map(|i| Card::from_index(i).unwrap())
            .filter(|c| c.rank() <= home[usize::from(c.suit())])
            .collect();
        loop {
            let keep = |c: &Card| {
                (1..c.rank()).all(|r| set.iter().any(|x| x.suit() == c.suit() && x.rank() == r))
                    && children(rules, *c).iter().all(|x| set.contains(x))
            };
            let next: Vec<Card> = set.iter().copied().filter(keep).collect();
            if next.len() == set.len() {
                return [0, 1, 2, 3].map(|s| set.iter().filter(|c| c.suit() == s).count() as u8);
            }
            set = next;
        }
    }

    #[test]
    fn settled_heights_follow_their_definition() {
        let mut s = ms1();
        for rules in [Variant::FREECELL, Variant { same_suit: true, ..Variant::FREECELL }] {
            let takeback = Variant { takeback: true, ..rules };
            for code in (0..14u32.pow(4)).step_by(7) {
                let home = [0, 1, 2, 3].map(|i| (code / 14u32.pow(i) % 14) as u8);
                s.home = home;
                assert_eq!(s.settled_heights(&takeback), settled_by_definition(&takeback, home), "{home:?}");
            }
        }
        // Hearts at 9 but clubs at 3: 4H..9H may be wanted back for 3C..8C, 3S..8S.
        s.home = [3, 13, 9, 13];
        assert_eq!(s.settled_heights(&Variant { takeback: true, ..Variant::FREECELL }), [3, 4, 4, 5]);
    }

    #[test]
    fn under_takeback_a_card_is_safe_only_when_what_fits_on_it_is_settled() {
        let takeback = Variant { takeback: true, ..Variant::FREECELL };
        let c = |t: &str| Card::parse(t).unwrap();
        let mut s = ms1();
        s.home = [1, 1, 1, 0];
        assert!(s.safe_to_foundation(&takeback, c("AS")));
        assert!(s.safe_to_foundation(&takeback, c("2C")), "both red aces are home");
        s.home = [1, 1, 0, 0];
        assert!(!s.safe_to_foundation(&takeback, c("2C")), "AH may still want to go on it");
        assert!(s.safe_to_foundation(&Variant::FREECELL, c("2C")), "the classic rule sends 2s home always");
        s.home = [4, 4, 4, 4];
        assert!(s.safe_to_foundation(&takeback, c("5H")), "4C and 4S are home and settled");
        s.home = [4, 4, 4, 3];
        assert!(!s.safe_to_foundation(&takeback, c("5H")), "4S is in play");
        assert!(s.safe_to_foundation(&Variant::FREECELL, c("5H")), "the classic rule: 4S is clear");
        // With diamonds at 1, clubs and spades are settled only to 2 (3C and 3S may be
        // wanted back for 2D to go on), so 4C and 4S may be too, and 5H is not safe.
        s.home = [4, 1, 4, 4];
        assert!(!s.safe_to_foundation(&takeback, c("5H")));
    }

    #[test]
    fn cards_taken_back_come_off_the_foundation_and_return_on_undo() {
        let takeback = Variant { takeback: true, ..Variant::FREECELL.with_cells(1) };
        // Home: AC, every diamond, AH to 3H, AS 2S. Settled: clubs to A, the rest to 2
        // (2C is in play and may want 3D or 3H back to go on), so 3H and KD may come back.
        // 3H has a use at once (2C tops column 3), onto 4S or 4C but not into a cell (2H
        // below it is settled); KD only into a cell, for QD below it to come back.
        let mut cols = columns(
            "4H 4S\n5H 4C\n3C 2C\n5C 6C 7C 8C\n9C TC JC QC KC\n6H 7H 8H 9H TH\nJH QH KH 3S 5S\n\
             6S 7S 8S 9S TS JS QS KS",
        );
        cols.resize(8, vec![]);
        let mut s = Position::new(&takeback, &cols, &[None], [1, 13, 3, 2]).unwrap();
        assert_eq!(s.settled_heights(&takeback), [1, 2, 2, 2]);
        let before = s.clone();
        let mut out = vec![];
        crate::moves::generate(&s, &takeback, false, &mut out);
        let mut names: Vec<String> = out.iter().map(|m| m.to_string()).filter(|n| n.starts_with('h')).collect();
        names.sort();
        assert_eq!(names, ["hda", "hh1", "hh2"]);
        let mut classic = vec![];
        crate::moves::generate(&s, &Variant { takeback: false, ..takeback }, false, &mut classic);
        assert_eq!(classic.len() + 3, out.len());

        let m = Move::new(Place::Foundation(2), Place::Column(1), 1);
        let h = s.hashes(&takeback);
        let p = s.play(m);
        assert_eq!(p.card, Card::parse("3H").unwrap());
        assert_eq!(s.home(), [1, 13, 2, 2]);
        assert_eq!(s.top(1), Some(p.card));
        assert_eq!(s.fingerprint_after(&before, &h, &[p]), s.fingerprint(&takeback));
        s.undo(p);
        assert_eq!(s, before);
    }

    #[test]
    fn autoplay_on_deal_one_sends_nothing_home() {
        let mut s = ms1();
        let mut played = vec![];
        s.autoplay(&Variant::FREECELL, &mut played);
        assert!(played.is_empty());
    }

    #[test]
    fn moves_print_in_standard_notation() {
        assert_eq!(Move::new(Place::Column(2), Place::Cell(0), 1).to_string(), "3a");
        assert_eq!(Move::new(Place::Cell(7), Place::Column(9), 1).to_string(), "i0");
        assert_eq!(Move::new(Place::Column(1), Place::Column(5), 4).to_string(), "26v4");
        assert_eq!(Move::new(Place::Column(0), Place::Home, 1).to_string(), "1h");
        assert_eq!(Move::new(Place::Foundation(3), Place::Column(2), 1).to_string(), "hs3");
        assert_eq!(Move::new(Place::Foundation(1), Place::Cell(0), 1).to_string(), "hda");
    }
}
