//! Sockets: TCP, UDP, raw, packet, netlink and abstract Unix sockets are refused without
//! network; pathname Unix sockets stay reachable; `network: true` allows TCP.

use super::*;
use ash_engine::exec::sandbox::DenialKind;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};

fn python(code: &str) -> String {
    format!("python3 -c '{code}'")
}

fn tcp_connect(port: u16) -> String {
    python(&format!(
        "import socket\nsocket.create_connection((\"127.0.0.1\",{port}),timeout=3).send(b\"x\")"
    ))
}

#[test]
fn tcp_to_a_loopback_listener_is_refused_and_reported_as_network() {
    require_python3();
    for mode in MODES {
        for path in PATHS {
            let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
            listener.set_nonblocking(true).expect("nonblocking");
            let port = listener.local_addr().expect("addr").port();
            let mut s = Sandboxed::new(mode, false, path);
            let r = s.refused("tcp", &tcp_connect(port));
            assert_eq!(
                r.sandbox.denied().map(|d| d.kind.clone()),
                Some(DenialKind::Network),
                "{r:?}"
            );
            let r6 = python("import socket\nsocket.socket(socket.AF_INET6)");
            s.refused("tcp6", &r6);
            assert!(listener.accept().is_err(), "a connection got through");
        }
    }
}

#[test]
fn curl_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let curl = Command::new("curl").arg("--version").output();
    assert!(
        curl.is_ok_and(|o| o.status.success()),
        "curl is missing: install it with `apt-get install -y curl`"
    );
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    s.refused(
        "curl",
        &format!("curl -sS --max-time 3 http://127.0.0.1:{port}/"),
    );
    assert!(listener.accept().is_err(), "curl got through");
}

#[test]
fn udp_raw_packet_and_netlink_sockets_are_refused() {
    require_python3();
    let udp = UdpSocket::bind("127.0.0.1:0").expect("udp");
    udp.set_nonblocking(true).expect("nonblocking");
    let port = udp.local_addr().expect("addr").port();
    for mode in MODES {
        let mut s = Sandboxed::new(mode, false, Spawn::Direct);
        let send = python(&format!(
            "import socket\nsocket.socket(socket.AF_INET,socket.SOCK_DGRAM).sendto(b\"x\",(\"127.0.0.1\",{port}))"
        ));
        s.refused("udp", &send);
        let mut buf = [0u8; 8];
        assert!(udp.recv(&mut buf).is_err(), "a datagram got through");
        for family in [
            "socket.AF_INET,socket.SOCK_RAW,socket.IPPROTO_ICMP",
            "socket.AF_PACKET,socket.SOCK_RAW",
            "socket.AF_NETLINK,socket.SOCK_RAW,0",
        ] {
            let r = s.refused(
                family,
                &python(&format!("import socket\nsocket.socket({family})")),
            );
            assert!(stderr(&r).contains("Permission denied"), "{family}: {r:?}");
        }
    }
}

#[test]
fn an_abstract_unix_socket_outside_is_unreachable_but_pathname_ones_stay() {
    require_python3();
    let name = format!("ansa-sandbox-test-{}", std::process::id());
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("abstract name");
    let listener = UnixListener::bind_addr(&addr).expect("abstract listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let connect = python(&format!(
        "import socket\nsocket.socket(socket.AF_UNIX).connect(\"\\0{name}\")"
    ));
    let control = unsandboxed(&connect);
    assert!(
        control.status.success(),
        "control connect failed: {control:?}"
    );
    let _ = listener.accept();
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, true, path);
            s.refused("abstract unix", &connect);
            assert!(
                listener.accept().is_err(),
                "an abstract connection got through"
            );
            let sock = s.outside.join("sock");
            let named = UnixListener::bind(&sock).expect("pathname listener");
            let r = s.sh(&python(&format!(
                "import socket\nsocket.socket(socket.AF_UNIX).connect(\"{}\")",
                sock.display()
            )));
            assert_eq!(
                exec_data(&r.response, "pathname unix").code,
                Some(0),
                "{r:?}"
            );
            drop(named);
            std::fs::remove_file(&sock).expect("sock removed");
        }
    }
}

#[test]
fn network_true_allows_tcp_in_workspace_write_only() {
    require_python3();
    for path in PATHS {
        let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
        let port = listener.local_addr().expect("addr").port();
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, true, path);
        let r = s.sh(&tcp_connect(port));
        assert_eq!(exec_data(&r.response, "tcp allowed").code, Some(0), "{r:?}");
        listener.accept().expect("the connection arrived");
        // Read-only never has network, whatever the switch says.
        s.policy.mode = SandboxMode::ReadOnly;
        s.refused("read-only tcp", &tcp_connect(port));
    }
}
