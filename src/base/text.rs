//! Text helpers every layer may use: numbers as people read them, and user
//! text as a message quotes it (bounded, with its invisible characters shown).

use std::fmt::Write;

/// `3599998` as `3,599,998`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Characters of user text a message quotes: a message about a 100,000
/// character key shows its start and its length, not the key.
pub const EXCERPT_CHARS: usize = 60;

/// A character a terminal or a page would not show as itself: control
/// characters (C0, DEL, C1: ESC starts a terminal's escape sequences), the
/// bidirectional controls (U+202E turns the rest of a line around), line
/// and paragraph separators, zero-width spaces and the byte-order mark.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}')
}

/// User text to print whole: every invisible character (`is_invisible`)
/// written as `\u{202E}`, and the backslash as `\\` so that an escape
/// cannot be forged. Text without them comes back as it is.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text.chars());
    out
}

fn push_escaped(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars {
        if c == '\\' {
            out.push_str("\\\\");
        } else if is_invisible(c) {
            let _ = write!(out, "\\u{{{:X}}}", c as u32);
        } else {
            out.push(c);
        }
    }
}

/// At most `EXCERPT_CHARS` characters of user text, escaped (`escaped`),
/// with `…` when cut: for a key inside a path.
pub fn excerpt(text: &str) -> String {
    let mut out = String::new();
    push_escaped(&mut out, text.chars().take(EXCERPT_CHARS));
    if text.chars().nth(EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// User text as a message quotes it: `"brokerz"`, or for longer text its
/// excerpt and its length, `"aaaa…" (100,000 characters)`. Quotes inside
/// are written `\"`.
pub fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    out.push_str(&excerpt(text).replace('"', "\\\""));
    out.push('"');
    let count = text.chars().count();
    if count > EXCERPT_CHARS {
        let _ = write!(out, " ({} characters)", thousands(count as u64));
    }
    out
}

/// Characters of a whole message the command line and the page print: a
/// message that quotes through `quoted` stays far below it; one that does
/// not is cut here.
pub const MAX_MESSAGE_CHARS: usize = 1_000;

/// A message for one line: invisible characters escaped (a newline too)
/// and at most `MAX_MESSAGE_CHARS` characters, with its length when cut.
pub fn one_line(message: &str) -> String {
    let mut out = String::new();
    for c in message.chars().take(MAX_MESSAGE_CHARS) {
        if is_invisible(c) {
            let _ = write!(out, "\\u{{{:X}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    let count = message.chars().count();
    if count > MAX_MESSAGE_CHARS {
        let _ = write!(out, "… ({} characters)", thousands(count as u64));
    }
    out
}

/// JSON text with every invisible character outside ASCII (bidi controls,
/// C1, separators) written as a `\u` escape: the same JSON value, safe to
/// print on a terminal. serde_json already escapes C0 controls, and DEL is
/// escaped here too.
pub fn json_for_terminal(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(is_invisible) {
        return json.into();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_invisible(c) {
            // Outside strings JSON has only whitespace, which is not invisible
            // here but for '\n' '\r' '\t', kept as they are.
            if matches!(c, '\n' | '\r' | '\t') {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_text_is_bounded_and_shows_what_is_invisible() {
        assert_eq!(quoted("brokerz"), r#""brokerz""#);
        let long = "a".repeat(100_000);
        assert_eq!(quoted(&long), format!("\"{}…\" (100,000 characters)", "a".repeat(60)));
        assert_eq!(quoted(&"b".repeat(60)), format!("\"{}\"", "b".repeat(60)), "60 characters are quoted whole");
        assert_eq!(quoted("x\u{202E}y"), r#""x\u{202E}y""#);
        assert_eq!(quoted("\u{1B}]0;title\u{7}"), r#""\u{1B}]0;title\u{7}""#);
        assert_eq!(quoted("\u{1B}[2J"), r#""\u{1B}[2J""#);
        assert_eq!(quoted("a\u{0}b"), r#""a\u{0}b""#);
        assert_eq!(quoted("say \"hi\""), r#""say \"hi\"""#);
        assert_eq!(escaped(r"\u{202E}"), r"\\u{202E}", "an escape in the text cannot pass for one");
        assert_eq!(excerpt(&"é".repeat(61)), format!("{}…", "é".repeat(60)));
    }

    #[test]
    fn a_message_is_one_bounded_line() {
        assert_eq!(one_line("a\nb"), r"a\u{A}b");
        let long = one_line(&"x".repeat(2_000_000));
        assert!(long.chars().count() < MAX_MESSAGE_CHARS + 40 && long.ends_with("(2,000,000 characters)"), "{}", &long[long.len() - 40..]);
        assert_eq!(json_for_terminal("{\"a\":\"\u{202E}\u{7F}\"}\n"), "{\"a\":\"\\u202e\\u007f\"}\n");
        let v: String = serde_json::from_str(&json_for_terminal("\"\u{202E}\"")).unwrap();
        assert_eq!(v, "\u{202E}");
    }
}
