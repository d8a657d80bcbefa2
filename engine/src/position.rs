//! A FreeCell position, moves on it, safe automatic moves, and its canonical 128-bit fingerprint.

use std::fmt;
use std::sync::OnceLock;

use crate::card::Card;
use crate::variant::{Variant, MAX_CELLS, MAX_COLUMNS};

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

/// What `Position::loose_card_going_back` looks at: a position's cells and column ends,
/// none of its columns empty.
pub struct ColumnEnds<C, E> {
    /// A bit for each card at the end of a column.
    pub tops: u64,
    /// A bit for each card alone in its column.
    pub alone: u64,
    /// A cell's card.
    pub cell: C,
    /// The column a card ends, if it ends one.
    pub column_ending_in: E,
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

/// A position's fingerprint and its parts: each column's Zobrist word before and
/// after mixing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hashes {
    zobrist: [u128; MAX_COLUMNS],
    term: [u128; MAX_COLUMNS],
    pub fingerprint: u128,
}

impl Hashes {
    /// The hashes of `child`, reached by `played` from the position these are the
    /// hashes of: only the columns the moves touched are rehashed.
    pub fn after(&self, child: &Position, played: &[Played]) -> Hashes {
        let mut h = *self;
        h.advance(child, played);
        h
    }

    /// `after`, in place.
    pub fn advance(&mut self, child: &Position, played: &[Played]) {
        self.step(child, played, 1);
    }

    /// The inverse of `advance`: makes these the hashes of `parent` again, the position
    /// `played` was played from (and has since been taken back to). A depth-first
    /// search keeps one set of hashes this way, not one per level of its path.
    pub fn retreat(&mut self, parent: &Position, played: &[Played]) {
        self.step(parent, played, -1);
    }

    /// Columns `played` touched are rehashed; cards that entered a cell are added
    /// (`direction` 1) or taken away (-1), and those that left it the opposite. `now`
    /// is the position after `played` (advancing) or before it (retreating).
    fn step(&mut self, now: &Position, played: &[Played], direction: i32) {
        let t = tables();
        let mut touched = 0u16;
        // A column's word is the XOR of a key per card and height, so a single card
        // leaving or joining a column toggles one key, and toggling the same keys takes
        // the word back: advancing and retreating make the same toggles. The heights
        // are those before `played`, followed move by move.
        let incremental = played.iter().all(|p| p.m.count == 1);
        let mut lens = now.lens;
        if direction > 0 && incremental {
            // Backwards from the end, so that no count dips below zero on the way.
            for p in played.iter().rev() {
                if let Place::Column(i) = p.m.from {
                    lens[usize::from(i)] += 1;
                }
                if let Place::Column(i) = p.m.to {
                    lens[usize::from(i)] -= 1;
                }
            }
        }
        // A card's cell word is added when it enters a cell going forward, or leaves one
        // going back, and taken away otherwise.
        let cell = |fp: u128, c: usize, entering: bool| {
            if entering == (direction > 0) {
                fp.wrapping_add(t.cell[c])
            } else {
                fp.wrapping_sub(t.cell[c])
            }
        };
        for p in played {
            let c = usize::from(p.card.index());
            match p.m.from {
                Place::Column(i) => {
                    let i = usize::from(i);
                    touched |= 1 << i;
                    if incremental {
                        // It was the column's top card.
                        lens[i] -= 1;
                        self.zobrist[i] ^= t.column[usize::from(lens[i])][c];
                    }
                }
                Place::Cell(_) => self.fingerprint = cell(self.fingerprint, c, false),
                Place::Home | Place::Foundation(_) => {}
            }
            match p.m.to {
                Place::Column(i) => {
                    let i = usize::from(i);
                    touched |= 1 << i;
                    if incremental {
                        self.zobrist[i] ^= t.column[usize::from(lens[i])][c];
                        lens[i] += 1;
                    }
                }
                Place::Cell(_) => self.fingerprint = cell(self.fingerprint, c, true),
                Place::Home | Place::Foundation(_) => {}
            }
        }
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            if !incremental {
                self.zobrist[i] = zobrist(t, now.column(i), 0, 0);
            }
            let term = mix(self.zobrist[i]);
            self.fingerprint = self.fingerprint.wrapping_sub(self.term[i]).wrapping_add(term);
            self.term[i] = term;
        }
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

/// A position in 74 bytes rather than a `Position`'s 282, for the best-first pass, which
/// keeps one for every node it expands: millions, whose pages the kernel must also zero
/// before they are first written. The same cards in the same places: columns and cells
/// keep their real slots, which the solution refers to; the columns' cards lie one
/// column after another in `cards` (52 at most, whatever the variant).
#[derive(Clone, Copy)]
pub struct PackedPosition {
    lens: [u8; MAX_COLUMNS],
    cells: [u8; MAX_CELLS],
    home: [u8; 4],
    cards: [u8; Card::COUNT],
}

impl Position {
    pub fn pack(&self) -> PackedPosition {
        let mut cards = [0u8; Card::COUNT];
        let mut at = 0;
        for col in 0..MAX_COLUMNS {
            let column = self.column(col);
            cards[at..at + column.len()].copy_from_slice(column);
            at += column.len();
        }
        PackedPosition { lens: self.lens, cells: self.cells, home: self.home, cards }
    }
}

impl PackedPosition {
    pub fn unpack(&self) -> Position {
        let mut s = Position {
            cols: [[NO_CARD; MAX_HEIGHT]; MAX_COLUMNS],
            lens: self.lens,
            cells: self.cells,
            home: self.home,
        };
        let mut at = 0;
        for col in 0..MAX_COLUMNS {
            let n = s.len(col);
            s.cols[col][..n].copy_from_slice(&self.cards[at..at + n]);
            at += n;
        }
        s
    }
}

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

    /// In a proof (under rules where `Variant::loose_card_returns`), with every free
    /// cell full and no column empty: the move that puts a *loose* card x (one in a
    /// cell, or alone in its column, whose place it could go back to) onto a column
    /// whose end card p x fits on, when p can make no move (not home, not onto a card;
    /// the cells are full and no column is empty) and no card but x could be put on p
    /// (none at a column's end or in a cell); a card alone in its column must also be
    /// one that may fill an empty column, and take no card itself (none that fits on it
    /// at a column's end or in a cell). Such a position is replaced by the one this
    /// move leads to, and never stored: whatever it can do, that one can do too, or it
    /// can put x back and then do it (docs/correctness.md, "A loose card goes back",
    /// proves no win is lost). The first such cell, then the lowest such card alone in
    /// its column, then the first column, is taken. None if there is none.
    pub fn loose_card_return(&self, rules: &Variant) -> Option<Move> {
        if self.lens[..rules.columns].contains(&0) || self.cells[..rules.cells].contains(&NO_CARD) {
            return None;
        }
        let (_, from, column) = self.loose_card_going_back(
            rules,
            ColumnEnds {
                tops: self.tops(rules),
                alone: (0..rules.columns).filter(|&i| self.len(i) == 1).fold(0, |bits, i| bits | 1 << self.cols[i][0]),
                cell: |slot| self.cell(slot).map(|c| c.index()),
                column_ending_in: |c| (0..rules.columns).find(|&i| self.column(i).last() == Some(&c)),
            },
        )?;
        Some(Move::new(from, Place::Column(column as u8), 1))
    }

    /// The rule of `loose_card_return` on a view of a position's cells and column ends
    /// (`ColumnEnds`), which the caller has seen to have no empty column; the
    /// foundations are this position's. The search also asks it
    /// about a child not yet played, seen through its parent. Where the loose card is
    /// (a cell, or the column it is alone in) and the column it goes onto: the card, its
    /// place and the column.
    #[inline]
    pub fn loose_card_going_back<C, E>(&self, rules: &Variant, view: ColumnEnds<C, E>) -> Option<(u8, Place, usize)>
    where
        C: Fn(usize) -> Option<u8>,
        E: Fn(u8) -> Option<usize>,
    {
        debug_assert!(rules.loose_card_returns(), "not under take-back or relaxed runs");
        let mut in_cells = 0u64;
        for slot in 0..rules.cells {
            in_cells |= 1 << (view.cell)(slot)?;
        }
        let free = view.tops | in_cells;
        let from_cell = (0..rules.cells).find_map(|slot| {
            let x = (view.cell)(slot)?;
            Some((x, Place::Cell(slot as u8), self.stuck_end_for(rules, x, view.tops, free, &view.column_ending_in)?))
        });
        from_cell.or_else(|| {
            // Cards alone in their columns that may come back into an empty one and take
            // no card.
            let mut alone = view.alone;
            while alone != 0 {
                let x = alone.trailing_zeros() as u8;
                alone &= alone - 1;
                if !rules.may_fill_empty(card(x)) || rules.child_mask(x) & free != 0 {
                    continue;
                }
                let Some(a) = (view.column_ending_in)(x) else { continue };
                if let Some(column) = self.stuck_end_for(rules, x, view.tops, free, &view.column_ending_in) {
                    return Some((x, Place::Column(a as u8), column));
                }
            }
            None
        })
    }

    /// For `loose_card_going_back`: the first column ending in a card x fits on that can
    /// neither move (not home, not onto a card at a column's end, `tops`: the cells are
    /// full and no column is empty) nor take a card but x (none in `free`, the cards at
    /// the columns' ends and in the cells).
    #[inline(always)]
    fn stuck_end_for<E>(&self, rules: &Variant, x: u8, tops: u64, free: u64, column_ending_in: &E) -> Option<usize>
    where
        E: Fn(u8) -> Option<usize>,
    {
        let mut ends = rules.parent_mask(x) & tops;
        let mut first = None;
        while ends != 0 {
            let p = ends.trailing_zeros() as u8;
            ends &= ends - 1;
            let movable = rules.parent_mask(p) & tops != 0 || self.can_go_home(card(p));
            let wanted = rules.child_mask(p) & !(1 << x) & free != 0;
            if movable || wanted {
                continue;
            }
            if let Some(column) = column_ending_in(p) {
                first = Some(first.map_or(column, |f: usize| f.min(column)));
            }
        }
        first
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

    /// The fingerprint of this position's canonical form: the same for positions that
    /// differ only in the order of their columns or of their free cells.
    pub fn fingerprint(&self, rules: &Variant) -> u128 {
        self.hashes(rules).fingerprint
    }

    /// The fingerprint with its parts per column, from which the fingerprints of the
    /// positions one move away follow cheaply (`fingerprint_after`).
    pub fn hashes(&self, rules: &Variant) -> Hashes {
        let t = tables();
        let mut h = Hashes { zobrist: [0; MAX_COLUMNS], term: [0; MAX_COLUMNS], fingerprint: self.cells_term(t) };
        for i in 0..rules.columns {
            h.zobrist[i] = zobrist(t, self.column(i), 0, 0);
            h.term[i] = mix(h.zobrist[i]);
            h.fingerprint = h.fingerprint.wrapping_add(h.term[i]);
        }
        h
    }

    /// The fingerprint of this position, reached from `before` (whose `hashes` are
    /// given) by `played`. Moves only take cards off and put cards on the ends of
    /// columns, so only the cards above the lowest point each touched column fell to
    /// are rehashed, and cells change by the cards that entered or left them.
    pub fn fingerprint_after(&self, before: &Position, h: &Hashes, played: &[Played]) -> u128 {
        let t = tables();
        let mut fp = h.fingerprint;
        let mut lens = before.lens;
        let mut lowest = before.lens;
        let mut touched = 0u16;
        for p in played {
            let n = p.m.count;
            match p.m.from {
                Place::Column(i) => {
                    let i = usize::from(i);
                    lens[i] -= n;
                    lowest[i] = lowest[i].min(lens[i]);
                    touched |= 1 << i;
                }
                Place::Cell(_) => fp = fp.wrapping_sub(t.cell[usize::from(p.card.index())]),
                Place::Home | Place::Foundation(_) => {}
            }
            match p.m.to {
                Place::Column(i) => {
                    let i = usize::from(i);
                    lens[i] += n;
                    touched |= 1 << i;
                }
                Place::Cell(_) => fp = fp.wrapping_add(t.cell[usize::from(p.card.index())]),
                Place::Home | Place::Foundation(_) => {}
            }
        }
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let low = usize::from(lowest[i]);
            // XOR is its own inverse: take out the cards that left, put in those that came.
            let z = zobrist(t, &before.column(i)[low..], low, h.zobrist[i]);
            let z = zobrist(t, &self.column(i)[low..], low, z);
            fp = fp.wrapping_sub(h.term[i]).wrapping_add(mix(z));
        }
        fp
    }

    /// The fingerprint `fingerprint_after` gives the position `m` leads to from this one
    /// (whose `hashes` are `h`), worked out without playing `m`, when `m` sends no card
    /// home and no automatic foundation move follows it; None otherwise (a card sent
    /// home, or a card uncovered that may go home safely). A card leaving or joining a
    /// column toggles one key of its word (a run toggles one per card); a cell adds or
    /// takes away the card's word. The exhaustive pass, which needs no more of most
    /// children than this, plays none of them: a third of its work was playing and
    /// taking back moves. The quick passes weigh such a child without playing it too
    /// (`ChildScorer::score_of_quiet_move`).
    #[inline]
    pub fn fingerprint_of_quiet_move(&self, rules: &Variant, h: &Hashes, m: Move) -> Option<u128> {
        if m.count != 1 {
            return self.fingerprint_of_quiet_run(rules, h, m);
        }
        if m.to == Place::Home {
            return None;
        }
        let t = tables();
        let mut fp = h.fingerprint;
        let c = match m.from {
            Place::Column(i) => {
                let i = usize::from(i);
                let len = self.len(i);
                let c = self.cols[i][len - 1];
                // What `autoplay_after` looks at: the card uncovered.
                if len >= 2 && self.safe_to_foundation(rules, card(self.cols[i][len - 2])) {
                    return None;
                }
                let z = h.zobrist[i] ^ t.column[len - 1][usize::from(c)];
                fp = fp.wrapping_sub(h.term[i]).wrapping_add(mix(z));
                c
            }
            Place::Cell(slot) => {
                let c = self.cells[usize::from(slot)];
                fp = fp.wrapping_sub(t.cell[usize::from(c)]);
                c
            }
            Place::Foundation(suit) => self.foundation_top(suit).index(),
            Place::Home => return None,
        };
        match m.to {
            Place::Column(j) => {
                let j = usize::from(j);
                let z = h.zobrist[j] ^ t.column[self.len(j)][usize::from(c)];
                fp = fp.wrapping_sub(h.term[j]).wrapping_add(mix(z));
            }
            Place::Cell(_) => fp = fp.wrapping_add(t.cell[usize::from(c)]),
            Place::Home | Place::Foundation(_) => return None,
        }
        Some(fp)
    }

    /// `fingerprint_of_quiet_move` for a quiet single-card move `m` after which the
    /// loose card `x` goes back from `from` (a cell, or the column it is alone in) onto
    /// column `b` (`Position::loose_card_return` of the child): the fingerprint of the
    /// position after both, neither played.
    #[inline]
    pub fn fingerprint_of_quiet_move_and_return(
        &self,
        rules: &Variant,
        h: &Hashes,
        m: Move,
        x: u8,
        from: Place,
        b: usize,
    ) -> Option<u128> {
        let fp = self.fingerprint_of_quiet_move(rules, h, m)?;
        let t = tables();
        let moved = self.lead_card(m).index();
        // A column as the move left it: its key and its length.
        let after_move = |i: usize| {
            let (mut z, mut len) = (h.zobrist[i], self.len(i));
            if m.from == Place::Column(i as u8) {
                len -= 1;
                z ^= t.column[len][usize::from(moved)];
            }
            if m.to == Place::Column(i as u8) {
                z ^= t.column[len][usize::from(moved)];
                len += 1;
            }
            (z, len)
        };
        let (z, len) = after_move(b);
        let fp = fp.wrapping_sub(mix(z)).wrapping_add(mix(z ^ t.column[len][usize::from(x)]));
        Some(match from {
            Place::Column(a) => {
                // x is alone in column a: taking it out leaves the column's key empty.
                let (z, _) = after_move(usize::from(a));
                fp.wrapping_sub(mix(z)).wrapping_add(mix(z ^ t.column[0][usize::from(x)]))
            }
            _ => fp.wrapping_sub(t.cell[usize::from(x)]),
        })
    }

    /// `fingerprint_of_quiet_move` for a run of several cards from one column to
    /// another (apart, so that the exhaustive pass's single-card moves stay as lean).
    fn fingerprint_of_quiet_run(&self, rules: &Variant, h: &Hashes, m: Move) -> Option<u128> {
        let (Place::Column(i), Place::Column(j)) = (m.from, m.to) else { return None };
        let (i, j, k) = (usize::from(i), usize::from(j), usize::from(m.count));
        let len = self.len(i);
        if len > k && self.safe_to_foundation(rules, card(self.cols[i][len - k - 1])) {
            return None;
        }
        let t = tables();
        let moving = &self.cols[i][len - k..len];
        let from = zobrist(t, moving, len - k, h.zobrist[i]);
        let to = zobrist(t, moving, self.len(j), h.zobrist[j]);
        let fp = h.fingerprint.wrapping_sub(h.term[i]).wrapping_add(mix(from));
        Some(fp.wrapping_sub(h.term[j]).wrapping_add(mix(to)))
    }

    fn cells_term(&self, t: &Tables) -> u128 {
        self.cells.iter().filter(|&&c| c != NO_CARD).fold(0u128, |sum, &c| sum.wrapping_add(t.cell[usize::from(c)]))
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
fn card(c: u8) -> Card {
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

// --- fingerprints ---------------------------------------------------------------------------
//
// A column's contents hash to Z = XOR of table[height][card] (Zobrist hashing: two different
// columns differ by a non-empty XOR of independent random 128-bit words). The position's
// fingerprint is the wrapping sum over columns of mix(Z), plus one random word per card in a
// cell. A sum does not depend on order, which makes the fingerprint canonical under
// permutations of columns and of cells; mix (a bijection) keeps the sum from being linear in
// the table entries. Foundations need no term: the cards not in play are the ones home.

struct Tables {
    column: [[u128; Card::COUNT]; MAX_HEIGHT],
    cell: [u128; Card::COUNT],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        // SplitMix64 from a fixed seed: the same fingerprints in every process and run.
        let mut seed = 0x5EED_F12E_CE11_u64;
        let mut next = move || {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut word = move || (u128::from(next()) << 64) | u128::from(next());
        let mut t = Box::new(Tables { column: [[0; Card::COUNT]; MAX_HEIGHT], cell: [0; Card::COUNT] });
        for row in t.column.iter_mut() {
            for w in row.iter_mut() {
                *w = word();
            }
        }
        for w in t.cell.iter_mut() {
            *w = word();
        }
        t
    })
}

/// `z` XOR the Zobrist words of `cards` lying from height `from` up.
#[inline]
fn zobrist(t: &Tables, cards: &[u8], from: usize, z: u128) -> u128 {
    cards.iter().enumerate().fold(z, |z, (h, &c)| z ^ t.column[from + h][usize::from(c)])
}

/// MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit.
#[inline]
pub(crate) fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// A bijection on 128-bit words built from three invertible rounds.
#[inline]
fn mix(z: u128) -> u128 {
    let (mut lo, mut hi) = (z as u64, (z >> 64) as u64);
    lo = fmix64(lo ^ hi.rotate_left(17));
    hi = fmix64(hi ^ lo);
    lo = fmix64(lo ^ hi);
    (u128::from(hi) << 64) | u128::from(lo)
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

    #[test]
    fn fingerprint_ignores_column_and_cell_order_only() {
        let rules = Variant::FREECELL;
        let cols = columns(MS1);
        let a = Position::new(&rules, &cols, &[None; 4], [0; 4]).unwrap();
        let mut rev = cols.clone();
        rev.reverse();
        let b = Position::new(&rules, &rev, &[None; 4], [0; 4]).unwrap();
        assert_eq!(a.fingerprint(&rules), b.fingerprint(&rules));

        let mut c = a.clone();
        c.apply(Move::new(Place::Column(0), Place::Cell(0), 1));
        c.apply(Move::new(Place::Column(1), Place::Cell(3), 1));
        let mut d = a.clone();
        d.apply(Move::new(Place::Column(1), Place::Cell(1), 1));
        d.apply(Move::new(Place::Column(0), Place::Cell(2), 1));
        assert_ne!(c, d);
        assert_eq!(c.fingerprint(&rules), d.fingerprint(&rules));
        assert_ne!(a.fingerprint(&rules), c.fingerprint(&rules));

        // Swapping two cards between columns is a different position.
        let mut swapped = cols.clone();
        let (x, y) = (swapped[0][0], swapped[1][0]);
        swapped[0][0] = y;
        swapped[1][0] = x;
        let e = Position::new(&rules, &swapped, &[None; 4], [0; 4]).unwrap();
        assert_ne!(a.fingerprint(&rules), e.fingerprint(&rules));
    }

    #[test]
    fn incremental_fingerprint_matches_the_full_one() {
        let rules = Variant::FREECELL;
        let mut s = ms1();
        let moves = [
            Move::new(Place::Column(5), Place::Cell(0), 1),
            Move::new(Place::Column(5), Place::Cell(1), 1),
            // That uncovers AC, which autoplay sends home, then 2C from cell b and AS.
            Move::new(Place::Column(2), Place::Cell(1), 1),
            Move::new(Place::Column(3), Place::Cell(2), 1),
        ];
        for m in moves {
            let mut legal = vec![];
            crate::moves::generate(&s, &rules, true, &mut legal);
            assert!(legal.contains(&m), "{m} is not legal here");
            let before = s.clone();
            let h = before.hashes(&rules);
            let mut played = vec![s.play(m)];
            s.autoplay(&rules, &mut played);
            assert_eq!(s.fingerprint_after(&before, &h, &played), s.fingerprint(&rules), "{m}");
        }
    }

    /// Random walks from deal 1 under `rules`, checking at every move that the
    /// incremental fingerprints equal the full one and that undoing the move and its
    /// automatic moves gives the position back. With `takeback`, any foundation's top
    /// card may also go into a free cell, and moves home or off a foundation are
    /// picked half the time there are some (they are rare). Returns the take-backs played.
    fn walk_checking_fingerprints(rules: &Variant, walks: usize, mut rng: u64, takeback: bool) -> usize {
        let mut taken_back = 0;
        for _ in 0..walks {
            let mut s = ms1();
            for _ in 0..300 {
                let mut moves = vec![];
                crate::moves::generate(&s, rules, true, &mut moves);
                if let (true, Some(slot)) = (takeback, s.first_empty_cell(rules)) {
                    let suits = (0..4u8).filter(|&suit| s.home()[usize::from(suit)] > 0);
                    moves.extend(suits.map(|suit| Move::new(Place::Foundation(suit), Place::Cell(slot as u8), 1)));
                }
                if moves.is_empty() {
                    break;
                }
                rng = fmix64(rng.wrapping_add(0x9E37_79B9_7F4A_7C15));
                let rare: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| matches!(m.from, Place::Foundation(_)) || m.to == Place::Home)
                    .collect();
                let pool = if takeback && !rare.is_empty() && rng.is_multiple_of(2) { &rare } else { &moves };
                let m = pool[(rng >> 8) as usize % pool.len()];
                taken_back += usize::from(matches!(m.from, Place::Foundation(_)));
                let before = s.clone();
                let h = before.hashes(rules);
                let mut played = vec![s.play(m)];
                s.autoplay_after(rules, m, &mut played);
                assert_eq!(s.fingerprint_after(&before, &h, &played), s.fingerprint(rules), "{m}");
                let mut after = h.after(&s, &played);
                assert_eq!(after, s.hashes(rules), "{m}");
                after.retreat(&before, &played);
                assert_eq!(after, h, "{m}");
                let mut back = s.clone();
                for &p in played.iter().rev() {
                    back.undo(p);
                }
                assert_eq!(back, before, "{m}");
            }
        }
        taken_back
    }

    #[test]
    fn incremental_fingerprint_matches_the_full_one_along_random_walks() {
        walk_checking_fingerprints(&Variant::FREECELL.with_cells(2), 50, 0x1234_5678_9abc_def0, false);
    }

    /// Packing keeps every card in its place: along random walks under several rules,
    /// and on a layout that fills ten columns and eight cells, the unpacked position
    /// equals the original, fingerprint and every column, cell and foundation.
    #[test]
    fn a_packed_position_unpacks_to_the_same_cards_in_the_same_places() {
        assert_eq!(std::mem::size_of::<PackedPosition>(), 74);
        let check = |s: &Position, rules: &Variant| {
            let back = s.pack().unpack();
            assert_eq!(&back, s);
            assert_eq!(back.fingerprint(rules), s.fingerprint(rules));
            assert_eq!(back.home(), s.home());
            for slot in 0..MAX_CELLS {
                assert_eq!(back.cell(slot), s.cell(slot));
            }
        };
        let mut rng = 0xFACE_u64;
        let mut seen = 0;
        for rules in crate::testdata::walk_rules() {
            for _ in 0..10 {
                crate::testdata::random_walk(&rules, 200, &mut rng, |s, _| {
                    check(s, &rules);
                    seen += 1;
                });
            }
        }
        assert!(seen > 200, "{seen}");
        // Every card in play in ten columns and eight cells, one foundation started.
        let wide = Variant { columns: 10, cells: 8, ..Variant::FREECELL };
        let in_play: Vec<u8> = (0..52).filter(|&c| c != 0).collect();
        let (cells, rest) = in_play.split_at(8);
        let columns: Vec<Vec<u8>> = rest.chunks(5).map(<[u8]>::to_vec).collect();
        let cells: Vec<Option<u8>> = cells.iter().map(|&c| Some(c)).collect();
        let s = Position::new(&wide, &columns, &cells, [1, 0, 0, 0]).expect("layout");
        assert_eq!(s.empty_cells(&wide), 0);
        check(&s, &wide);
    }

    /// Along random walks under several rules, every move `fingerprint_of_quiet_move`
    /// answers (runs of several cards too) is one whose played child has no automatic
    /// move and that fingerprint; every move it declines (but those home) has one.
    #[test]
    fn a_quiet_moves_fingerprint_is_its_played_childs() {
        let (mut quiet, mut quiet_runs, mut declined) = (0, 0, 0);
        let mut rng = 0x51E7_u64;
        for rules in crate::testdata::walk_rules() {
            for _ in 0..20 {
                crate::testdata::random_walk(&rules, 200, &mut rng, |s, moves| {
                    let h = s.hashes(&rules);
                    for &m in moves {
                        let mut child = s.clone();
                        let mut played = vec![child.play(m)];
                        child.autoplay_after(&rules, m, &mut played);
                        match s.fingerprint_of_quiet_move(&rules, &h, m) {
                            Some(fp) => {
                                assert_eq!(played.len(), 1, "{m}");
                                assert_eq!(fp, child.fingerprint(&rules), "{m}");
                                quiet += 1;
                                quiet_runs += usize::from(m.count > 1);
                            }
                            None if m.to != Place::Home => {
                                assert!(played.len() > 1, "{m} declined");
                                declined += 1;
                            }
                            None => {}
                        }
                    }
                });
            }
        }
        assert!(
            quiet > 2_000 && quiet_runs > 20 && declined > 50,
            "{quiet} quiet ({quiet_runs} runs), {declined} declined"
        );
    }

    #[test]
    fn mix_is_a_bijection_on_samples() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000u128 {
            assert!(seen.insert(mix(i)));
            assert!(seen.insert(mix(i << 64)) || i == 0);
        }
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
    fn incremental_fingerprint_matches_the_full_one_along_random_walks_with_takeback() {
        let rules = Variant { takeback: true, ..Variant::FREECELL.with_cells(2) };
        let taken_back = walk_checking_fingerprints(&rules, 200, 0xBAC, true);
        assert!(taken_back >= 20, "only {taken_back} take-backs played");
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

    #[test]
    fn a_loose_card_goes_back_only_onto_a_card_that_can_neither_move_nor_take_another() {
        // Home: clubs to T, diamonds to the given height, hearts and spades to 9. JH in
        // the cell fits on QS (column 1) and QC (buried under JS in column 3).
        let one_cell = Variant { columns: 4, ..Variant::FREECELL.with_cells(1) };
        let c = |t: &str| Card::parse(t).unwrap().index();
        let at = |rules: &Variant, layout: &str, diamonds: u8| {
            let mut cols = columns(layout);
            cols.resize(rules.columns, vec![]);
            Position::new(rules, &cols, &[Some(c("JH"))], [10, diamonds, 9, 9]).unwrap()
        };
        let back_onto = Move::new(Place::Cell(0), Place::Column(0), 1);
        let back_onto_first = Some(back_onto);
        // QS cannot go home (TS is not), KH is under it, KD home, JD home: JH goes back.
        let s = at(&one_cell, "KH QS\nTH JC KC\nTS QC JS\nKS QH", 13);
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
        let mut f = s.clone();
        f.play(back_onto);
        assert_eq!((f.cell(0), f.top(0)), (None, Card::from_index(c("JH"))));
        // KH ends a column: QS could move onto it.
        let s = at(&one_cell, "QS\nTH JC KC\nTS QC JS\nQH KS KH", 13);
        assert_eq!(s.loose_card_return(&one_cell), None);
        // JD ends a column: it could go on QS instead. Buried, it could not.
        let s = at(&one_cell, "KH QS\nKD QD TH JC KC\nTS QC JS\nKS QH JD", 10);
        assert_eq!(s.loose_card_return(&one_cell), None);
        let s = at(&one_cell, "KH QS\nKD QD TH JC KC\nTS QC JS\nKS JD QH", 10);
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
        // An empty column: no card goes back, whatever could go there.
        let five = Variant { columns: 5, ..one_cell };
        let s = at(&five, "KH QS\nTH JC KC\nTS QC JS\nKS QH", 13);
        assert_eq!(s.loose_card_return(&five), None);
        let kings_only = Variant { kings_only: true, ..five };
        assert_eq!(s.loose_card_return(&kings_only), None);
        // With no card in the cell there is nothing to put back.
        let mut cols = columns("KH QS JH\nTH JC KC\nTS QC JS\nKS QH");
        cols.resize(4, vec![]);
        let s = Position::new(&one_cell, &cols, &[None], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), None);
        // Two cells: only when both are full, and not while JD in the other cell could
        // go on QS.
        let two_cells = Variant { columns: 4, ..Variant::FREECELL.with_cells(2) };
        let two = |layout: &str, other: Option<u8>| {
            Position::new(&two_cells, &columns(layout), &[Some(c("JH")), other], [10, 10, 9, 9]).unwrap()
        };
        let s = two("KH QS\nKD QD TH JC KC\nTS QC JS\nJD KS QH", None);
        assert_eq!(s.loose_card_return(&two_cells), None);
        let s = two("KH QS\nKD QD TH JC KC\nTS QC JS\nKS QH", Some(c("JD")));
        assert_eq!(s.loose_card_return(&two_cells), None);
        let s = two("KH QS\nQD TH JC KC\nTS QC JS\nJD KS QH", Some(c("KD")));
        assert_eq!(s.loose_card_return(&two_cells), back_onto_first);
    }

    #[test]
    fn a_card_alone_in_its_column_goes_back_only_if_it_takes_no_card_and_may_come_back() {
        // No cells. Home: clubs to T, diamonds to the given height, hearts and spades to
        // 9. JH is alone in column 4; it fits on QS (column 1), which cannot move (KH is
        // under it, KD is home) and takes no other card (JD is home).
        let no_cells = Variant { columns: 4, ..Variant::FREECELL.with_cells(0) };
        let c = |t: &str| Card::parse(t).unwrap().index();
        let at = |rules: &Variant, layout: &str, diamonds: u8| {
            Position::new(rules, &columns(layout), &[], [10, diamonds, 9, 9]).unwrap()
        };
        let back_onto = Move::new(Place::Column(3), Place::Column(0), 1);
        let back_onto_first = Some(back_onto);
        let s = at(&no_cells, "KH QS\nTH JC KC\nTS QC JS KS QH\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), back_onto_first);
        let mut f = s.clone();
        f.play(back_onto);
        assert_eq!((f.len(3), f.top(0)), (0, Card::from_index(c("JH"))));
        // Under kings only JH could not come back into the empty column it leaves.
        let kings_only = Variant { kings_only: true, ..no_cells };
        assert_eq!(s.loose_card_return(&kings_only), None);
        // TS ends a column and could go on JH: JH stays.
        let s = at(&no_cells, "KH QS\nTH JC KC\nQC JS KS QH TS\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // JH is not alone: under it lies QC, which it fits on, but that place is kept.
        let s = at(&no_cells, "KH QS\nTH JC KC\nTS JS KS QH\nQC JH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // KH ends a column: QS could move onto it.
        let s = at(&no_cells, "QS\nTH JC KC\nTS QC JS QH KS KH\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // JD ends a column and could go on QS.
        let s = at(&no_cells, "KH QS\nKD QD TH JC KC\nTS QC JS KS QH JD\nJH", 10);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // With a cell, only when it is full (JS there goes nowhere: QH may move onto KC).
        let one_cell = Variant { columns: 4, ..Variant::FREECELL.with_cells(1) };
        let cols = columns("KH QS\nTH JC KC\nTS QC JS KS QH\nJH");
        let s = Position::new(&one_cell, &cols, &[None], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), None);
        let s = Position::new(&one_cell, &cols, &[Some(c("JS"))], [10, 13, 9, 9]);
        assert!(s.is_err(), "JS is in a column already");
        let cols = columns("KH QS\nTH JC KC\nTS QC KS QH\nJH");
        let s = Position::new(&one_cell, &cols, &[Some(c("JS"))], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
    }
}
