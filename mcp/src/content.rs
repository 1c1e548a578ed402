//! A tool's result as ansa reads it: rmcp's content blocks turned into owned, decoded values.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::error::CallError;

/// One block of a tool result, binary payloads already decoded from base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Text.
    Text(String),
    /// An image.
    Image {
        /// Its MIME type.
        mime: String,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// Audio.
    Audio {
        /// Its MIME type.
        mime: String,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// An embedded resource: `text` for text contents, `blob` for binary ones.
    Resource {
        /// Its URI.
        uri: String,
        /// Its MIME type, if given.
        mime: Option<String>,
        /// Its text, for a text resource.
        text: Option<String>,
        /// Its bytes, for a binary resource.
        blob: Option<Vec<u8>>,
    },
    /// A pointer to a resource the server did not inline.
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Its name.
        name: String,
        /// Its MIME type, if given.
        mime: Option<String>,
    },
}

/// A `tools/call` result: `is_error` is the server's `isError` (the tool ran and failed).
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The server's `isError`.
    pub is_error: bool,
    /// The content blocks, decoded.
    pub content: Vec<Content>,
    /// The `structuredContent`, if sent.
    pub structured: Option<serde_json::Value>,
}

impl CallResult {
    /// Converts rmcp's result, moving strings rather than copying them (a result can be 50 MB).
    pub fn from_rmcp(result: CallToolResult) -> Result<Self, CallError> {
        let mut content = Vec::with_capacity(result.content.len());
        for block in result.content {
            content.push(convert(block)?);
        }
        Ok(Self {
            is_error: result.is_error.unwrap_or(false),
            content,
            structured: result.structured_content,
        })
    }
}

fn convert(block: ContentBlock) -> Result<Content, CallError> {
    Ok(match block {
        ContentBlock::Text(text) => Content::Text(text.text),
        ContentBlock::Image(image) => Content::Image {
            data: decode(&image.data, "image")?,
            mime: image.mime_type,
        },
        ContentBlock::Audio(audio) => Content::Audio {
            data: decode(&audio.data, "audio")?,
            mime: audio.mime_type,
        },
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => Content::Resource {
                uri,
                mime: mime_type,
                text: Some(text),
                blob: None,
            },
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => Content::Resource {
                blob: Some(decode(&blob, "resource blob")?),
                uri,
                mime: mime_type,
                text: None,
            },
            other => Content::Text(
                serde_json::to_string(&other)
                    .map_err(|e| CallError::Protocol(format!("unreadable resource: {e}")))?,
            ),
        },
        ContentBlock::ResourceLink(link) => Content::ResourceLink {
            uri: link.uri,
            name: link.name,
            mime: link.mime_type,
        },
        // rmcp marks the union non-exhaustive: a block type from a newer protocol revision
        // is kept readable as its JSON rather than dropped.
        other => Content::Text(
            serde_json::to_string(&other)
                .map_err(|e| CallError::Protocol(format!("unreadable content block: {e}")))?,
        ),
    })
}

fn decode(data: &str, what: &str) -> Result<Vec<u8>, CallError> {
    base64::engine::general_purpose::STANDARD
        .decode(data.trim_end())
        .map_err(|e| CallError::Protocol(format!("{what} data is not valid base64: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> Result<CallResult, Box<dyn std::error::Error>> {
        let result: CallToolResult = serde_json::from_value(value)?;
        Ok(CallResult::from_rmcp(result)?)
    }

    #[test]
    fn every_block_type_converts_and_is_error_is_kept() -> Result<(), Box<dyn std::error::Error>> {
        let result = parse(json!({
            "isError": true,
            "structuredContent": {"sum": 3},
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "mimeType": "image/png", "data": "AAEC"},
                {"type": "audio", "mimeType": "audio/wav", "data": "AwQ="},
                {"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "body"}},
                {"type": "resource", "resource": {"uri": "file:///b", "blob": "BQY="}},
                {"type": "resource_link", "uri": "file:///c", "name": "c", "mimeType": "text/x"}
            ]
        }))?;
        assert!(result.is_error);
        assert_eq!(result.structured, Some(json!({"sum": 3})));
        assert_eq!(
            result.content,
            vec![
                Content::Text("hi".into()),
                Content::Image {
                    mime: "image/png".into(),
                    data: vec![0, 1, 2]
                },
                Content::Audio {
                    mime: "audio/wav".into(),
                    data: vec![3, 4]
                },
                Content::Resource {
                    uri: "file:///a".into(),
                    mime: Some("text/plain".into()),
                    text: Some("body".into()),
                    blob: None
                },
                Content::Resource {
                    uri: "file:///b".into(),
                    mime: None,
                    text: None,
                    blob: Some(vec![5, 6])
                },
                Content::ResourceLink {
                    uri: "file:///c".into(),
                    name: "c".into(),
                    mime: Some("text/x".into())
                },
            ]
        );
        Ok(())
    }

    #[test]
    fn absent_is_error_means_success_and_bad_base64_is_a_protocol_error()
    -> Result<(), Box<dyn std::error::Error>> {
        assert!(!parse(json!({"content": [{"type": "text", "text": "x"}]}))?.is_error);
        let result: CallToolResult = serde_json::from_value(
            json!({"content": [{"type": "image", "mimeType": "image/png", "data": "!!"}]}),
        )?;
        assert!(matches!(
            CallResult::from_rmcp(result),
            Err(CallError::Protocol(why)) if why.contains("image")
        ));
        Ok(())
    }
}
