//! Moves in standard notation read back: the engine's own lines, as `Move`'s Display writes them.

use crate::position::{Move, Place, Position};
use crate::variant::Variant;

/// One place in standard notation: a column digit, a cell letter, or `h`.
fn place(c: u8) -> Option<Place> {
    match c {
        b'1'..=b'9' => Some(Place::Column(c - b'1')),
        b'0' => Some(Place::Column(9)),
        b'a'..=b'g' => Some(Place::Cell(c - b'a')),
        b'i' => Some(Place::Cell(7)),
        b'h' => Some(Place::Home),
        _ => None,
    }
}

/// The move `token` writes (`3a`, `54`, `26v4`, `1h`, `hs3`), as Display writes them.
pub fn parse_move(token: &str) -> Option<Move> {
    let bytes = token.as_bytes();
    let (body, count) = match token.split_once('v') {
        Some((body, n)) => (body.as_bytes(), u8::from_str_radix(n, 16).ok().filter(|&n| n > 1)?),
        None => (bytes, 1),
    };
    match body {
        [b'h', suit, to] => {
            let suit = b"cdhs".iter().position(|s| s == suit)? as u8;
            Some(Move::new(Place::Foundation(suit), place(*to).filter(|p| *p != Place::Home)?, 1))
        }
        [from, to] => Some(Move::new(place(*from).filter(|p| *p != Place::Home)?, place(*to)?, count)),
        _ => None,
    }
}

/// The moves of `tokens` from `start`, each checked to be legal under `rules` as it is
/// played: Err names the first that is not.
pub fn parse_line(start: &Position, rules: &Variant, tokens: &[String]) -> Result<Vec<Move>, String> {
    let mut s = start.clone();
    let mut line = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let m = parse_move(token).ok_or_else(|| format!("move {} ({token:?}) is not in standard notation", i + 1))?;
        if !crate::moves::is_legal(&s, rules, m) {
            return Err(format!("move {} ({token}) is not legal there", i + 1));
        }
        s.apply(m);
        line.push(m);
    }
    Ok(line)
}
