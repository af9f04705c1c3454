//! Share links: a text (a scenario, or a tour file), deflated and
//! base64url-encoded, to put in a URL fragment. Decoding never panics and
//! bounds every size; each kind of link says how large it may be (`Format`).

use crate::model::config::limits;
use crate::run::scenario::{Scenario, ScenarioError};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// The format tag in front of every link (link format version 1).
const PREFIX: &str = "v1.";

/// A kind of link: what it holds, for messages, and its two bounds.
pub struct Format {
    /// What the link holds (`scenario`, `tour`), for messages.
    pub holds: &'static str,
    /// What a text without the format's tag is told.
    pub foreign: &'static str,
    /// What a message about the link starts with (`link`, `tour link`).
    pub label: &'static str,
    /// Characters of the link text (what follows `#s=` or `#t=`).
    pub max_chars: usize,
    /// Bytes of the text it holds, decompressed: a bomb stops there.
    pub max_bytes: usize,
}

/// A scenario's share link (`#s=`).
pub const SCENARIO: Format = Format {
    holds: "scenario",
    foreign: "does not start with \"v1.\"; it is not a Highwater scenario link",
    label: "link",
    max_chars: limits::MAX_LINK_CHARS,
    max_bytes: limits::MAX_SCENARIO_BYTES,
};

/// `text` as a link: `v1.` + deflate + base64url. Not bounded: for a text
/// the caller knows to be within `max_bytes` and a link that is never
/// refused (a scenario's; `encode_within` refuses).
fn pack(text: &str) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(packed))
}

/// `text` as a link of `format`, refused when `decode_text` would refuse it:
/// the text over `max_bytes`, or the link over `max_chars`. The numbers in
/// messages are plain, as the decoder's (the page matches its phrases).
pub fn encode_within(text: &str, format: &Format) -> Result<String, String> {
    let err = |m: String| format!("{}: {m}", format.label);
    if text.len() > format.max_bytes {
        return Err(err(format!("the {} is {} bytes, larger than the limit of {}", format.holds, text.len(), format.max_bytes)));
    }
    let link = pack(text);
    if link.len() > format.max_chars {
        return Err(err(format!("{} characters is longer than the limit of {}", link.len(), format.max_chars)));
    }
    Ok(link)
}

/// The text a link of `format` holds: at most `max_chars` of link, at most
/// `max_bytes` decompressed, UTF-8. Every message starts with the label.
pub fn decode_text(link: &str, format: &Format) -> Result<String, String> {
    decode_with(link, format, |text| Ok(text.to_string()))
}

/// What `read` makes of the text a link of `format` holds, its error after
/// the label as the decoder's own are.
fn decode_with<T>(link: &str, format: &Format, read: impl FnOnce(&str) -> Result<T, String>) -> Result<T, String> {
    let err = |m: String| format!("{}: {m}", format.label);
    let link = link.trim();
    if link.len() > format.max_chars {
        return Err(err(format!("{} characters is longer than the limit of {}", link.len(), format.max_chars)));
    }
    let body = link.strip_prefix(PREFIX).ok_or_else(|| err(format.foreign.to_string()))?;
    let packed = URL_SAFE_NO_PAD.decode(body).map_err(|e| err(format!("is not valid base64url ({e}); it may be cut short")))?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, format.max_bytes).map_err(|e| {
        err(match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!("expands past the limit of {} bytes", format.max_bytes),
            _ => "is corrupt or truncated (it does not decompress)".to_string(),
        })
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| err("does not hold UTF-8 text".into()))?;
    read(text).map_err(err)
}

pub fn encode(scenario: &Scenario) -> String {
    pack(&serde_json::to_string(scenario).expect("a scenario always serializes"))
}

pub fn decode(link: &str) -> Result<Scenario, ScenarioError> {
    decode_with(link, &SCENARIO, |text| Scenario::from_json(text).map_err(|e| e.0)).map_err(ScenarioError)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::scenario::{Produce, Step};

    #[test]
    fn round_trip_and_errors() {
        let mut s = Scenario::new(Default::default());
        s.steps.push(Step::Produce(Produce { value: "<script>alert(1)</script>".into(), acks: Default::default(), to: None, partition: None, key: None }));
        s.steps.push(Step::fetch(2));
        let link = encode(&s);
        assert!(link.starts_with("v1.") && link.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)));
        assert_eq!(decode(&link).unwrap(), s);
        let mut corrupt = 0;
        for cut in 1..20 {
            let e = decode(&link[..link.len() - cut]).unwrap_err().0;
            assert!(e.contains("it may be cut short") || e.starts_with("link: is corrupt or truncated"), "{e}");
            corrupt += e.contains("corrupt") as u32;
        }
        assert!(corrupt > 0, "some cuts reach the decompressor");
        assert!(decode("hello").unwrap_err().0.contains("not a Highwater scenario link"));
        assert!(decode("v1.@@@").unwrap_err().0.contains("base64url"));
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; limits::MAX_SCENARIO_BYTES + 10], 9);
        let e = decode(&format!("v1.{}", URL_SAFE_NO_PAD.encode(bomb))).unwrap_err().0;
        assert!(e.contains("expands past the limit"), "{e}");
        let e = decode(&format!("v1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(br#"{"version":1,"config":{"brokers":0}}"#, 6)))).unwrap_err().0;
        assert_eq!(e, "link: config.brokers: 0 is out of range 1..=7");
    }

    /// A format's bounds hold both ways: what `encode_within` writes,
    /// `decode_text` reads back; what it refuses, `decode_text` would refuse.
    #[test]
    fn a_format_bounds_both_ends() {
        let small = Format { holds: "note", foreign: "does not start with \"v1.\"; it is not a note link", label: "note link", max_chars: 40, max_bytes: 100 };
        let link = encode_within("hello, hello, hello", &small).unwrap();
        assert_eq!(decode_text(&link, &small).unwrap(), "hello, hello, hello");
        let e = encode_within(&"x".repeat(101), &small).unwrap_err();
        assert_eq!(e, "note link: the note is 101 bytes, larger than the limit of 100");
        // Text that does not compress: the link outgrows its limit first.
        let e = encode_within("The quick brown fox jumps over the lazy dog", &small).unwrap_err();
        assert!(e.starts_with("note link: ") && e.ends_with("characters is longer than the limit of 40"), "{e}");
        assert_eq!(decode_text(&"v".repeat(41), &small).unwrap_err(), "note link: 41 characters is longer than the limit of 40");
        assert_eq!(decode_text("s1.abc", &small).unwrap_err(), "note link: does not start with \"v1.\"; it is not a note link");
        let bomb = pack(&" ".repeat(101));
        assert!(bomb.len() <= 40, "{bomb}");
        assert_eq!(decode_text(&bomb, &small).unwrap_err(), "note link: expands past the limit of 100 bytes");
        let latin1 = format!("v1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&[0xff, 0xfe], 9)));
        assert_eq!(decode_text(&latin1, &small).unwrap_err(), "note link: does not hold UTF-8 text");
    }
}
