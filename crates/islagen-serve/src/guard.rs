//! Who may talk to the server: the Host and Origin checks that keep other websites out, as local
//! development servers do (Vite's `allowedHosts`, webpack's `allowedHosts: "auto"`).
//!
//! Guarantees:
//! - **DNS rebinding.** A request whose `Host` is not the address served is refused with 403
//!   before any handler runs. Allowed: `localhost` and `*.localhost`, loopback addresses, the
//!   bound address (any IP literal when bound to all interfaces: the machine's own addresses),
//!   and the names given with `--allow-host`. A rebinding attack needs a name of its own, so it
//!   is never one of these. A request without `Host` is refused too.
//! - **Cross-site requests (CSRF).** A request that changes state (any method but GET, HEAD and
//!   OPTIONS) is refused with 403 when its `Origin` is not this server's own
//!   (`http://` + the request's `Host`), `Origin: null` included. Any request the browser marks
//!   `Sec-Fetch-Site: cross-site` or `same-site` is refused unless it is a GET navigation (a
//!   link to the page): another site's page can neither change anything nor load tiles and
//!   views (`<img src>`) to tie the server up. Browsers send `Origin` on every POST; tools such
//!   as curl send neither and are let through.
//! - **Framing (clickjacking).** A cross-site navigation is let through only as a top-level
//!   one (`Sec-Fetch-Dest: document`, or none sent): another site cannot load the app, a view
//!   or a file into an `<iframe>`. Every answer also carries `X-Frame-Options: DENY` and
//!   `Content-Security-Policy: frame-ancestors 'none'`, so a browser that sends no
//!   `Sec-Fetch-*` headers still refuses to frame it; the policy also keeps the page to its own
//!   scripts, styles and server ([`CONTENT_SECURITY_POLICY`]).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// The hosts a request may name.
#[derive(Clone, Debug)]
pub struct Hosts {
    /// The bound address.
    pub bound: SocketAddr,
    /// Extra names (`--allow-host`), lowercase.
    pub names: Vec<String>,
}

impl Hosts {
    /// The hosts allowed for a server bound at `bound`, plus `names`.
    pub fn new(bound: SocketAddr, names: &[String]) -> Hosts {
        Hosts {
            bound,
            names: names.iter().map(|n| normalise(n)).collect(),
        }
    }

    /// Whether a `Host` header value (name or IP literal, with or without a port) is served.
    pub fn allows(&self, host: &str) -> bool {
        let name = normalise(strip_port(host));
        if name.is_empty() {
            return false;
        }
        if name == "localhost" || name.ends_with(".localhost") || self.names.contains(&name) {
            return true;
        }
        let literal = name.trim_start_matches('[').trim_end_matches(']');
        match literal.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.bound.ip() || self.bound.ip().is_unspecified(),
            Err(_) => false,
        }
    }
}

/// Lowercase, without a trailing dot (`LOCALHOST.` is `localhost`).
fn normalise(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// `host[:port]` or `[v6][:port]` without the port.
fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// What a browser says of a request: its `Origin`, `Sec-Fetch-Site`, `Sec-Fetch-Mode` and
/// `Sec-Fetch-Dest`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fetch<'a> {
    /// `Origin`.
    pub origin: Option<&'a str>,
    /// `Sec-Fetch-Site`.
    pub site: Option<&'a str>,
    /// `Sec-Fetch-Mode`.
    pub mode: Option<&'a str>,
    /// `Sec-Fetch-Dest`.
    pub dest: Option<&'a str>,
}

/// Why a request is refused, if it is: `host` is its `Host`.
pub fn refusal(hosts: &Hosts, method: &Method, host: Option<&str>, fetch: Fetch) -> Option<String> {
    let Some(host) = host else {
        return Some("a request needs a Host header".into());
    };
    if !hosts.allows(host) {
        return Some(format!(
            "Host {host:?} is not this server's address; serve with --allow-host {:?} to allow it",
            strip_port(host)
        ));
    }
    let reading = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if let Some(site) = fetch
        .site
        .filter(|s| matches!(*s, "cross-site" | "same-site"))
    {
        let navigation = reading && fetch.mode == Some("navigate");
        if !navigation {
            return Some(format!(
                "a {site} request may not change anything here or use the server from another page"
            ));
        }
        if fetch.dest.is_some_and(|d| d != "document") {
            return Some(format!(
                "a {site} page may link to this server but not frame it (Sec-Fetch-Dest {:?})",
                fetch.dest.unwrap_or_default()
            ));
        }
    }
    if reading {
        return None;
    }
    match fetch.origin {
        Some(o) if !o.eq_ignore_ascii_case(&format!("http://{host}")) => Some(format!(
            "Origin {o:?} is not this server's (http://{host}): cross-site requests may not change anything here"
        )),
        _ => None,
    }
}

/// The middleware: a refused request is a 403 naming why.
pub async fn check(State(hosts): State<Arc<Hosts>>, req: Request, next: Next) -> Response {
    // In a block of its own: the header borrows end before the await (a body is not Sync).
    let why = {
        let h = |name: header::HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok());
        // HTTP/2 and absolute-form requests carry the host in the URI rather than the header.
        let host = h(header::HOST).or_else(|| req.uri().authority().map(|a| a.as_str()));
        let fetch = Fetch {
            origin: h(header::ORIGIN),
            site: h(header::HeaderName::from_static("sec-fetch-site")),
            mode: h(header::HeaderName::from_static("sec-fetch-mode")),
            dest: h(header::HeaderName::from_static("sec-fetch-dest")),
        };
        refusal(&hosts, req.method(), host, fetch)
    };
    let mut response = match why {
        Some(why) => ApiError::forbidden(why).into_response(),
        None => next.run(req).await,
    };
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    response
}

/// The policy every answer carries: the page runs only its own scripts and styles, talks only
/// to this server (and the `blob:` URLs it made of previews), shows images from both, and may
/// not be framed. The page passes it: the browser test fails on any console error, a
/// violation included.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' blob: data:; connect-src 'self' blob:; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> Hosts {
        Hosts::new("127.0.0.1:8765".parse().unwrap(), &["Atlas.lan".into()])
    }

    #[test]
    fn loopback_names_the_bound_address_and_allowed_names_pass() {
        let h = loopback();
        for ok in [
            "localhost:8765",
            "LOCALHOST.",
            "app.localhost:1",
            "127.0.0.1:8765",
            "127.0.0.2",
            "[::1]:8765",
            "atlas.lan:8765",
        ] {
            assert!(h.allows(ok), "{ok} refused");
        }
        for bad in [
            "evil.example:8765",
            "192.168.1.9:8765",
            "",
            "localhost.evil.example",
            "[::2]",
        ] {
            assert!(!h.allows(bad), "{bad} allowed");
        }
        let all = Hosts::new("0.0.0.0:8765".parse().unwrap(), &[]);
        assert!(all.allows("192.168.1.9:8765"));
        assert!(!all.allows("rebound.example:8765"));
    }

    #[test]
    fn state_changes_need_this_servers_origin() {
        let h = loopback();
        let host = Some("127.0.0.1:8765");
        let (post, get) = (Method::POST, Method::GET);
        let none = Fetch::default();
        let origin = |o| Fetch {
            origin: Some(o),
            ..none
        };
        let site = |s, m| Fetch {
            site: Some(s),
            mode: Some(m),
            ..none
        };
        assert!(refusal(&h, &post, host, none).is_none(), "curl");
        let own = Fetch {
            site: Some("same-origin"),
            ..origin("http://127.0.0.1:8765")
        };
        assert!(refusal(&h, &post, host, own).is_none());
        for o in [
            "http://evil.example",
            "null",
            "http://127.0.0.1:3000",
            "https://127.0.0.1:8765",
        ] {
            assert!(refusal(&h, &post, host, origin(o)).is_some(), "{o}");
        }
        assert!(refusal(&h, &post, host, site("cross-site", "cors")).is_some());
        // Another site's page may link to the page but not load its tiles or views.
        assert!(refusal(&h, &get, host, site("cross-site", "navigate")).is_none());
        // ...as a top-level page, not in an iframe.
        let framed = |dest| Fetch {
            dest: Some(dest),
            ..site("cross-site", "navigate")
        };
        assert!(refusal(&h, &get, host, framed("document")).is_none());
        for dest in ["iframe", "frame", "embed", "object"] {
            assert!(refusal(&h, &get, host, framed(dest)).is_some(), "{dest}");
        }
        assert!(refusal(&h, &get, host, site("cross-site", "no-cors")).is_some());
        assert!(refusal(&h, &get, host, site("same-site", "no-cors")).is_some());
        assert!(refusal(&h, &get, host, site("same-origin", "no-cors")).is_none());
        assert!(refusal(&h, &get, host, origin("http://evil.example")).is_none());
        assert!(refusal(&h, &get, Some("evil.example"), none).is_some());
        assert!(refusal(&h, &get, None, none).is_some());
    }
}
