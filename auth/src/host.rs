//! The per-host ID sent as `ext_agent_host_id`: `urn:uuid:<random v4 UUID>`, created once in
//! the store and kept, so the issuer sees one registration per host.

use rand::RngCore;

use super::dir::AuthDir;
use super::error::AuthError;

/// The file that keeps it.
pub const HOST_FILE: &str = "host_id";

/// A host ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostId(String);

impl HostId {
    /// The ID as sent, `urn:uuid:…`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The store's host ID, created on first use. Two processes creating it at once agree:
    /// the file is published without replacing one that appeared meanwhile.
    pub fn load_or_create(dir: &AuthDir) -> Result<HostId, AuthError> {
        if let Some(id) = Self::load(dir)? {
            return Ok(id);
        }
        let fresh = HostId::random();
        dir.publish_new(HOST_FILE, format!("{}\n", fresh.0).as_bytes())?;
        Self::load(dir)?.ok_or_else(|| AuthError::Damaged {
            path: dir.path().join(HOST_FILE),
            reason: "vanished right after it was written".into(),
        })
    }

    fn load(dir: &AuthDir) -> Result<Option<HostId>, AuthError> {
        let Some(bytes) = dir.read(HOST_FILE)? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&bytes);
        let id = text.trim_end_matches('\n');
        if !is_urn_uuid(id) {
            return Err(AuthError::Damaged {
                path: dir.path().join(HOST_FILE),
                reason: "not a urn:uuid".into(),
            });
        }
        Ok(Some(HostId(id.to_owned())))
    }

    fn random() -> HostId {
        let mut b = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut b);
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        HostId(format!(
            "urn:uuid:{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        ))
    }
}

fn is_urn_uuid(id: &str) -> bool {
    let Some(uuid) = id.strip_prefix("urn:uuid:") else {
        return false;
    };
    let groups: Vec<&str> = uuid.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| {
            g.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_id_is_created_once_and_kept() {
        let t = tempfile::tempdir().unwrap();
        let dir = AuthDir::create(&t.path().join("auth")).unwrap();
        let first = HostId::load_or_create(&dir).unwrap();
        assert!(is_urn_uuid(first.as_str()), "{first:?}");
        assert_eq!(&first.as_str()[23..24], "4", "version 4: {first:?}");
        assert_eq!(HostId::load_or_create(&dir).unwrap(), first);
        dir.write_atomic(HOST_FILE, b"urn:uuid:nope\n").unwrap();
        assert!(matches!(
            HostId::load_or_create(&dir),
            Err(AuthError::Damaged { .. })
        ));
    }
}
