//! Share links: a scenario, deflated and base64url-encoded, to put in a URL
//! fragment. Decoding never panics and bounds every size.

use crate::model::config::limits;
use crate::run::scenario::{Scenario, ScenarioError};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// The format tag in front of every link (scenario format version 1).
const PREFIX: &str = "v1.";

pub fn encode(scenario: &Scenario) -> String {
    let json = serde_json::to_string(scenario).expect("a scenario always serializes");
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(packed))
}

pub fn decode(link: &str) -> Result<Scenario, ScenarioError> {
    let err = |m: String| ScenarioError(format!("link: {m}"));
    let link = link.trim();
    if link.len() > limits::MAX_LINK_CHARS {
        return Err(err(format!("{} characters is longer than the limit of {}", link.len(), limits::MAX_LINK_CHARS)));
    }
    let body = link.strip_prefix(PREFIX).ok_or_else(|| err(format!("does not start with \"{PREFIX}\"; it is not a Highwater scenario link")))?;
    let packed = URL_SAFE_NO_PAD.decode(body).map_err(|e| err(format!("is not valid base64url ({e}); it may be cut short")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, limits::MAX_SCENARIO_BYTES).map_err(|e| {
        err(match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!("expands past the limit of {} bytes", limits::MAX_SCENARIO_BYTES),
            _ => "is corrupt or truncated (it does not decompress)".to_string(),
        })
    })?;
    let text = std::str::from_utf8(&json).map_err(|_| err("does not hold UTF-8 text".into()))?;
    Scenario::from_json(text).map_err(|e| err(e.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::scenario::{Produce, Step};

    #[test]
    fn round_trip_and_errors() {
        let mut s = Scenario::new(Default::default());
        s.steps.push(Step::Produce(Produce { value: "<script>alert(1)</script>".into(), acks: Default::default(), to: None }));
        s.steps.push(Step::Fetch(2));
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
}
