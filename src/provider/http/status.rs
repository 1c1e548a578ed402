//! Reading a response's status line and headers: error classification, `retry-after`, MIME.

use std::time::{Duration, SystemTime};

use reqwest::header::{CONTENT_TYPE, HeaderMap, LOCATION, RETRY_AFTER};
use serde_json::Value;

use super::HttpError;
use super::target::sanitize;
use crate::provider::redact::Redactor;

/// Longest server message kept in an error.
const MESSAGE_MAX: usize = 400;

/// The media type of `Content-Type` (lower case, without parameters), if there is one.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<String> {
    let raw = headers.get(CONTENT_TYPE)?;
    let text = String::from_utf8_lossy(raw.as_bytes());
    let media = text.split(';').next().unwrap_or("").trim();
    Some(clip(&media.to_ascii_lowercase(), 100))
}

/// The error for a 3xx answer, naming where it pointed.
pub(crate) fn redirect(url: &str, status: u16, headers: &HeaderMap) -> HttpError {
    let location = headers
        .get(LOCATION)
        .map(|v| sanitize(&String::from_utf8_lossy(v.as_bytes())))
        .unwrap_or_else(|| "(no Location header)".into());
    HttpError::Redirect {
        url: url.to_string(),
        status,
        location,
    }
}

/// The typed error for a non-2xx answer with (a bounded prefix of) its body.
pub(crate) fn classify(
    url: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    secret: Option<&str>,
) -> HttpError {
    let detail = ErrorDetail::parse(headers, body);
    let message = redact(&detail.message, secret);
    let url = url.to_string();
    match status {
        401 | 403 => HttpError::Auth {
            url,
            status,
            message,
        },
        429 if detail.code.as_deref() == Some("insufficient_quota") => {
            HttpError::QuotaExceeded { url, message }
        }
        429 => HttpError::RateLimited {
            url,
            retry_after: retry_after(headers, SystemTime::now()),
            message,
        },
        400 | 413 if detail.is_context_length() => HttpError::ContextLength { url, message },
        400 if detail.unsupported_parameter().is_some() => HttpError::UnsupportedParameter {
            url,
            parameter: detail.unsupported_parameter().unwrap_or_default(),
            message,
        },
        500..=599 => HttpError::Server {
            url,
            status,
            retry_after: retry_after(headers, SystemTime::now()),
            message,
        },
        _ => HttpError::Rejected {
            url,
            status,
            message,
        },
    }
}

/// What an error body says: an OpenAI-style `{"error":{"message","code","type"}}`, a bare
/// `{"error":"…"}`, or plain text.
struct ErrorDetail {
    message: String,
    code: Option<String>,
    param: Option<String>,
}

/// Request parameters ansa leaves out for a model configured without them.
const OPTIONAL_PARAMETERS: [&str; 3] = ["reasoning", "include", "reasoning.encrypted_content"];

impl ErrorDetail {
    /// The optional request parameter a 400 rejects: named by `param` with an
    /// `unsupported_parameter`/`unsupported_value` code (OpenAI), or named in a message that
    /// says it is not supported (other servers).
    fn unsupported_parameter(&self) -> Option<String> {
        let coded = matches!(
            self.code.as_deref(),
            Some("unsupported_parameter" | "unsupported_value")
        );
        if let Some(param) = &self.param
            && (coded || OPTIONAL_PARAMETERS.iter().any(|p| param.starts_with(p)))
        {
            return Some(param.clone());
        }
        let lower = self.message.to_ascii_lowercase();
        let refuses = [
            "not supported",
            "unsupported",
            "unrecognized",
            "unknown parameter",
        ]
        .iter()
        .any(|w| lower.contains(w));
        refuses
            .then(|| OPTIONAL_PARAMETERS.iter().find(|p| lower.contains(*p)))
            .flatten()
            .map(|p| (*p).to_owned())
    }

    fn parse(headers: &HeaderMap, body: &[u8]) -> ErrorDetail {
        if let Ok(json) = serde_json::from_slice::<Value>(body) {
            let error = json.get("error").unwrap_or(&json);
            let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
            let message = text(error.get("message"))
                .or_else(|| text(Some(error)))
                .or_else(|| text(json.get("message")))
                .or_else(|| text(json.get("detail")))
                .unwrap_or_else(|| "(no message)".into());
            let code = text(error.get("code")).or_else(|| text(error.get("type")));
            let param = text(error.get("param"));
            return ErrorDetail {
                message,
                code,
                param,
            };
        }
        let media = media_type(headers);
        let message = match media.as_deref() {
            _ if body.is_empty() => "(empty body)".into(),
            Some("text/plain") => String::from_utf8_lossy(body).trim().to_string(),
            other => format!(
                "(a {} body of {} bytes)",
                other.unwrap_or("non-JSON"),
                body.len()
            ),
        };
        ErrorDetail {
            message,
            code: None,
            param: None,
        }
    }

    fn is_context_length(&self) -> bool {
        self.code.as_deref() == Some("context_length_exceeded")
            || self.message.contains("maximum context length")
    }
}

/// How long the server asks to wait: `retry-after-ms` (OpenAI), else `retry-after` in seconds
/// or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| seconds(v, 1e-3)) {
        return Some(ms);
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Some(secs) = seconds(value, 1.0) {
        return Some(secs);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A non-negative decimal number of `unit` seconds; absurdly large values saturate.
fn seconds(value: &str, unit: f64) -> Option<Duration> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let n: f64 = value.parse().ok()?;
    Some(Duration::try_from_secs_f64(n * unit).unwrap_or(Duration::MAX))
}

/// `message` without the secret (in any of the forms [`Redactor`] finds), clipped. Control
/// characters that are left are shown by the frontends' one sanitiser.
fn redact(message: &str, secret: Option<&str>) -> String {
    let text = Redactor::new(secret).redact(message);
    clip(text.trim(), MESSAGE_MAX)
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    fn json() -> HeaderMap {
        headers(&[("content-type", "application/json")])
    }

    #[test]
    fn typed_errors() {
        let body = br#"{"error":{"message":"bad key sk-abcdef","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        let e = classify("U", 401, &json(), body, Some("sk-abcdef"));
        assert_eq!(
            e,
            HttpError::Auth {
                url: "U".into(),
                status: 401,
                message: "bad key <redacted>".into()
            }
        );
        assert!(matches!(
            classify("U", 403, &json(), b"", None),
            HttpError::Auth { status: 403, .. }
        ));
        let ctx = br#"{"error":{"message":"too long","code":"context_length_exceeded"}}"#;
        assert!(matches!(
            classify("U", 400, &json(), ctx, None),
            HttpError::ContextLength { .. }
        ));
        let vllm = br#"{"message":"This model's maximum context length is 8192 tokens."}"#;
        assert!(matches!(
            classify("U", 400, &json(), vllm, None),
            HttpError::ContextLength { .. }
        ));
        let openai = br#"{"error":{"message":"Unsupported parameter: 'reasoning.effort' is not supported with this model.","type":"invalid_request_error","param":"reasoning.effort","code":"unsupported_parameter"}}"#;
        assert!(matches!(
            classify("U", 400, &json(), openai, None),
            HttpError::UnsupportedParameter { ref parameter, .. } if parameter == "reasoning.effort"
        ));
        let plain = br#"{"error":{"message":"include is not supported for this model","type":"invalid_request_error"}}"#;
        assert!(matches!(
            classify("U", 400, &json(), plain, None),
            HttpError::UnsupportedParameter { ref parameter, .. } if parameter == "include"
        ));
        let unrelated = br#"{"error":{"message":"temperature is not supported"}}"#;
        assert!(matches!(
            classify("U", 400, &json(), unrelated, None),
            HttpError::Rejected { .. }
        ));
        let other = br#"{"error":"model not found"}"#;
        assert_eq!(
            classify("U", 404, &json(), other, None),
            HttpError::Rejected {
                url: "U".into(),
                status: 404,
                message: "model not found".into()
            }
        );
        let quota = br#"{"error":{"message":"quota","code":"insufficient_quota"}}"#;
        assert!(matches!(
            classify("U", 429, &json(), quota, None),
            HttpError::QuotaExceeded { .. }
        ));
        let h = headers(&[("retry-after", "7")]);
        assert!(matches!(
            classify("U", 429, &h, b"", None),
            HttpError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_secs(7)
        ));
        let h = headers(&[("content-type", "text/html")]);
        let e = classify("U", 502, &h, b"<html>gateway</html>", None);
        assert_eq!(
            e,
            HttpError::Server {
                url: "U".into(),
                status: 502,
                retry_after: None,
                message: "(a text/html body of 20 bytes)".into()
            }
        );
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:00 GMT").unwrap();
        let at = |pairs: &[(&'static str, &str)]| retry_after(&headers(pairs), now);
        assert_eq!(at(&[("retry-after", "3")]), Some(Duration::from_secs(3)));
        assert_eq!(
            at(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            at(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            Some(Duration::from_secs(37))
        );
        // A date in the past means now.
        assert_eq!(
            at(&[("retry-after", "Sun, 06 Nov 1994 08:48:00 GMT")]),
            Some(Duration::ZERO)
        );
        // The obsolete RFC 850 form is accepted too.
        assert_eq!(
            at(&[("retry-after", "Sunday, 06-Nov-94 08:49:10 GMT")]),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            at(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            at(&[("retry-after-ms", "x"), ("retry-after", "9")]),
            Some(Duration::from_secs(9))
        );
        assert_eq!(at(&[("retry-after", "-1")]), None);
        assert_eq!(at(&[("retry-after", "soon")]), None);
        assert_eq!(at(&[]), None);
        assert_eq!(
            at(&[("retry-after", &"9".repeat(400))]),
            Some(Duration::MAX)
        );
    }

    #[test]
    fn media_types_and_redirects() {
        let h = headers(&[("content-type", "Text/Event-Stream; charset=utf-8")]);
        assert_eq!(media_type(&h).as_deref(), Some("text/event-stream"));
        assert_eq!(media_type(&HeaderMap::new()), None);
        let h = headers(&[("location", "https://u:p@elsewhere/x?token=secret")]);
        let e = redirect("U", 302, &h);
        assert!(
            matches!(&e, HttpError::Redirect { location, .. } if location == "https://elsewhere/x"),
            "{e:?}"
        );
    }

    #[test]
    fn messages_are_clean_and_bounded() {
        let long = format!(
            "{{\"error\":{{\"message\":\"a\\nb{}\"}}}}",
            "x".repeat(2000)
        );
        let HttpError::Rejected { message, .. } =
            classify("U", 422, &json(), long.as_bytes(), None)
        else {
            panic!()
        };
        // Control characters stay for the frontends' one sanitiser to show (`a␊b`).
        assert!(message.starts_with("a\nb"));
        assert!(message.chars().count() <= MESSAGE_MAX + 1);
    }
}
