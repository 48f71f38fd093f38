//! The page's files, built into the binary so `islagen serve` works with no internet and from
//! any folder: `web/` in the repository (the page, its script and style, and the vendored map
//! library, Leaflet 1.9.4, with its licence).
//!
//! Guarantees (tested below): every file under `web/` except the `*.md` notes is served, under
//! its path relative to `web/`; every file that `index.html` and `leaflet.css` refer to is
//! served; each has a media type chosen by its extension.

/// One file of the page: its bytes and its `Content-Type`.
pub struct Asset {
    /// The file's bytes.
    pub bytes: &'static [u8],
    /// Its media type, e.g. `text/html; charset=utf-8`.
    pub content_type: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const PNG: &str = "image/png";
const TEXT: &str = "text/plain; charset=utf-8";

macro_rules! web {
    ($path:literal, $type:expr) => {
        ($path, include_bytes!(concat!("../web/", $path)), $type)
    };
}

/// Every file served, by its path under `/static/` (`index.html` is also served at `/`).
const ASSETS: &[(&str, &[u8], &str)] = &[
    web!("index.html", HTML),
    web!("app.js", JS),
    web!("terrain3d.js", JS),
    web!("app.css", CSS),
    web!("vendor/leaflet/leaflet.js", JS),
    web!("vendor/leaflet/leaflet.css", CSS),
    web!("vendor/leaflet/LICENSE", TEXT),
    web!("vendor/leaflet/images/layers.png", PNG),
    web!("vendor/leaflet/images/layers-2x.png", PNG),
    web!("vendor/leaflet/images/marker-icon.png", PNG),
    web!("vendor/leaflet/images/marker-icon-2x.png", PNG),
    web!("vendor/leaflet/images/marker-shadow.png", PNG),
];

/// The asset at `path` (relative to `/static/`, no leading slash), if there is one.
pub fn asset(path: &str) -> Option<Asset> {
    ASSETS
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|&(_, bytes, content_type)| Asset {
            bytes,
            content_type,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn text(path: &str) -> &'static str {
        std::str::from_utf8(asset(path).unwrap().bytes).unwrap()
    }

    /// The values of `attr="..."` in `html` that start with `prefix`.
    fn references<'a>(html: &'a str, attr: &str, prefix: &str) -> Vec<&'a str> {
        let needle = format!("{attr}=\"{prefix}");
        html.match_indices(&needle)
            .map(|(i, _)| {
                let rest = &html[i + needle.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    #[test]
    fn every_file_the_page_refers_to_is_served() {
        let html = text("index.html");
        let mut refs = references(html, "src", "/static/");
        refs.extend(references(html, "href", "/static/"));
        assert_eq!(refs.len(), 5, "{refs:?}");
        for r in &refs {
            assert!(
                asset(r).is_some(),
                "index.html refers to /static/{r}, not served"
            );
        }
        let css = text("vendor/leaflet/leaflet.css");
        let images: Vec<&str> = css
            .match_indices("url(")
            .map(|(i, _)| &css[i + 4..i + 4 + css[i + 4..].find(')').unwrap()])
            .filter(|u| !u.starts_with("data:") && !u.starts_with('#'))
            .collect();
        assert!(!images.is_empty());
        for u in images {
            let path = format!("vendor/leaflet/{}", u.trim_matches(['"', '\'']));
            assert!(
                asset(&path).is_some(),
                "leaflet.css refers to {path}, not served"
            );
        }
    }

    #[test]
    fn every_file_under_web_is_served_with_a_type() {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, root, out);
                } else if p.extension().is_none_or(|x| x != "md") {
                    out.push(
                        p.strip_prefix(root)
                            .unwrap()
                            .to_str()
                            .unwrap()
                            .replace('\\', "/"),
                    );
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let mut files = Vec::new();
        walk(&root, &root, &mut files);
        assert_eq!(files.len(), ASSETS.len(), "{files:?}");
        for f in files {
            let a = asset(&f).unwrap_or_else(|| panic!("web/{f} is not embedded"));
            assert_eq!(a.bytes, std::fs::read(root.join(&f)).unwrap().as_slice());
            let ext = f.rsplit('.').next().unwrap();
            let expected = match ext {
                "html" => HTML,
                "js" => JS,
                "css" => CSS,
                "png" => PNG,
                _ => TEXT,
            };
            assert_eq!(a.content_type, expected, "{f}");
        }
        assert!(asset("../Cargo.toml").is_none());
        assert!(asset("").is_none());
        assert!(asset("/index.html").is_none());
    }
}
