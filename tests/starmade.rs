//! StarMade blueprints: every real vector reads, its block histogram equals its element map,
//! known blocks decode to known fields, read → write → read keeps every block, the element map,
//! the header and the docking entries; hostile files get typed errors; an exported island reads
//! back with a matching histogram and columns that follow the heights.

use std::path::{Path, PathBuf};

use islagen::formats::starmade::{self, region, Blueprint, Rule};

/// Seed 42's world at `size`, roads skipped: what the export tests voxelise.
fn world_42(size: u32) -> islagen::pipeline::World {
    let mut c = islagen::config::Config::from_json("{}", "defaults")
        .unwrap()
        .config;
    c.map_size = size;
    c.skip_roads = true;
    islagen::pipeline::generate(&c, 42, &islagen::progress::Progress::hidden()).unwrap()
}

fn vectors() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/starmade");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sment"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 14, "the 14 SMBEdit vectors");
    v
}

fn vector(name: &str) -> Blueprint {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/vectors/starmade/{name}.sment"));
    starmade::read_path(&p).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn all_clean(bp: &Blueprint) -> bool {
    bp.element_map_mismatches().is_empty() && bp.children.iter().all(|(_, c)| all_clean(c))
}

/// The raw word of the block at absolute (chunk-frame) coordinates.
fn word_at(bp: &Blueprint, p: [i32; 3]) -> u32 {
    let s = bp.chunk as i32;
    let seg = bp
        .segments
        .iter()
        .find(|g| (0..3).all(|k| p[k] >= g.position[k] && p[k] < g.position[k] + s))
        .expect("a segment holds the block");
    let l = [
        p[0] - seg.position[0],
        p[1] - seg.position[1],
        p[2] - seg.position[2],
    ]
    .map(|c| c as usize);
    seg.words[l[0] + bp.chunk * l[1] + bp.chunk * bp.chunk * l[2]]
}

#[test]
fn every_vector_reads_and_the_histogram_equals_the_element_map() {
    for path in vectors() {
        let bp = starmade::read_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!bp.segments.is_empty(), "{}: no segments", path.display());
        assert!(
            all_clean(&bp),
            "{}: {:?}",
            path.display(),
            bp.report().mismatches
        );
    }
}

#[test]
fn known_facts_of_b_box_and_0_199_132() {
    let b = vector("B_Box");
    let h = &b.header;
    assert_eq!(
        (h.version, h.entity_type, h.classification),
        (3, 0, Some(0))
    );
    assert_eq!((h.min, h.max), ([-4.0; 3], [5.0; 3]));
    let mut elements = h.elements.clone();
    elements.sort();
    assert_eq!(elements, vec![(1, 1), (55, 6), (122, 32), (598, 112)]);
    assert_eq!(b.blocks().len(), 151);
    let w = word_at(&b, [14, 14, 13]);
    assert_eq!(w, 678_486);
    let block = region::decode(w, 3);
    assert_eq!((block.id, block.hp), (598, 75));

    let old = vector("0_199_132_ship");
    assert_eq!(old.header.version, 2);
    assert_eq!(old.header.classification, None);
    assert_eq!(old.blocks().len(), 51);
    // The vectors README gives this block's raw word as 0x032005; the file holds 0x0B2005 —
    // the same id and hit points, with bit 19 (version 2's active flag: set = inactive) set.
    let w = word_at(&old, [16, 16, 0]);
    assert_eq!(w & !(1 << 19), 204_805);
    let block = region::decode(w, 2);
    assert_eq!((block.id, block.hp), (5, 100));
    assert!(old.segments.iter().all(|s| s.version == 2));
}

fn same(a: &Blueprint, b: &Blueprint, name: &str) {
    assert_eq!(a.blocks(), b.blocks(), "{name}: blocks");
    let sorted = |bp: &Blueprint| {
        let mut e = bp.header.elements.clone();
        e.sort();
        e
    };
    assert_eq!(sorted(a), sorted(b), "{name}: element map");
    let (ha, hb) = (&a.header, &b.header);
    assert_eq!(
        (ha.entity_type, ha.min, ha.max, &ha.statistics),
        (hb.entity_type, hb.min, hb.max, &hb.statistics),
        "{name}: header"
    );
    assert_eq!(
        a.meta.docking(),
        b.meta.docking(),
        "{name}: docking entries"
    );
    assert_eq!(a.children.len(), b.children.len(), "{name}: children");
    for ((na, ca), (_, cb)) in a.children.iter().zip(&b.children) {
        same(ca, cb, &format!("{name}/{na}"));
    }
}

#[test]
fn read_write_read_keeps_every_block_the_header_and_the_docking() {
    for path in vectors() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let bp = starmade::read_path(&path).unwrap();
        let files = starmade::write_files(&bp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again =
            starmade::from_files(&files, "", &bp.name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again.header.version, 3);
        assert_eq!(again.chunk, 32);
        same(&bp, &again, &name);
        assert!(all_clean(&again), "{name}: histogram after the round trip");
    }
}

#[test]
fn the_folder_and_the_archive_written_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let bp = vector("B_Rail_Rotation");
    starmade::write(&bp, dir.path()).unwrap();
    let from_folder = starmade::read_path(&dir.path().join(&bp.name)).unwrap();
    let from_archive = starmade::read_path(&dir.path().join(format!("{}.sment", bp.name))).unwrap();
    same(&bp, &from_folder, "folder");
    same(&bp, &from_archive, "archive");
}

fn header_of(bp: &Blueprint) -> Vec<u8> {
    starmade::header::write(&bp.header)
}

#[test]
fn hostile_files_get_typed_errors() {
    let bp = vector("B_Box");
    let good = header_of(&bp);
    // Truncated header.
    let e = starmade::header::read(&good[..20], "header.smbph").unwrap_err();
    assert_eq!(e.rule, Rule::Truncated, "{e}");
    // An element count larger than the file could hold.
    let mut huge = good.clone();
    huge[36..40].copy_from_slice(&i32::MAX.to_be_bytes());
    let e = starmade::header::read(&huge, "header.smbph").unwrap_err();
    assert_eq!(e.rule, Rule::CountTooLarge, "{e}");
    // A zlib bomb in a segment: a sector whose stream inflates past 98 304 bytes.
    let mut files = starmade::write_files(&bp).unwrap();
    let (name, data) = files
        .iter()
        .find(|(k, _)| k.ends_with(".smd3"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    let bomb = {
        use std::io::Write;
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![0u8; 1 << 20]).unwrap();
        enc.finish().unwrap()
    };
    assert!(bomb.len() < region::SMD3_SECTOR - 26);
    let mut evil = data.clone();
    let sector = region::SMD3_HEADER;
    evil[sector + 22..sector + 26].copy_from_slice(&(bomb.len() as i32).to_be_bytes());
    evil[sector + 26..sector + 26 + bomb.len()].copy_from_slice(&bomb);
    let slot = (4..region::SMD3_HEADER)
        .step_by(4)
        .find(|&i| evil[i] != 0 || evil[i + 1] != 0)
        .unwrap();
    evil[slot + 2..slot + 4].copy_from_slice(&((26 + bomb.len()) as u16).to_be_bytes());
    let e = region::read_smd3(&evil, &name).unwrap_err();
    assert_eq!(e.rule, Rule::WrongInflatedLength, "{e}");
    // A segment whose sector starts past the end of the file.
    let mut past = data.clone();
    past[slot..slot + 2].copy_from_slice(&500i16.to_be_bytes());
    let e = region::read_smd3(&past, &name).unwrap_err();
    assert_eq!(e.rule, Rule::PastTheEnd, "{e}");
    // A truncated region file.
    let e = region::read_smd3(&data[..1000], &name).unwrap_err();
    assert_eq!(e.rule, Rule::Truncated, "{e}");
    files.insert(name, past);
    let e = starmade::from_files(&files, "", "B_Box").unwrap_err();
    assert_eq!(e.rule, Rule::PastTheEnd, "{e}");
    // A file that is not an archive.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sment");
    std::fs::write(&junk, b"not a zip").unwrap();
    let e = starmade::read_path(&junk).unwrap_err();
    assert_eq!(e.rule, Rule::NotAZip, "{e}");
}

#[test]
fn an_exported_island_reads_back_and_its_columns_follow_the_heights() {
    use islagen::formats::starmade::export::{ids, island, Entity};
    let world = world_42(1024);
    let v = island(&world.blueprint, 128, Entity::Asteroid, "Island_Seed_42").unwrap();
    assert_eq!(v.blueprint.header.entity_type, 3);
    let dir = tempfile::tempdir().unwrap();
    starmade::write(&v.blueprint, dir.path()).unwrap();
    let back = starmade::read_path(&dir.path().join("Island_Seed_42.sment")).unwrap();
    assert!(
        back.element_map_mismatches().is_empty(),
        "{:?}",
        back.element_map_mismatches()
    );
    let blocks = back.blocks();
    assert!(blocks.len() > 10_000, "{} blocks", blocks.len());
    let ids_seen: std::collections::BTreeSet<u16> = blocks.iter().map(|(_, b)| b.id).collect();
    for id in [ids::ROCK, ids::GRASS, ids::WATER, ids::SAND] {
        assert!(ids_seen.contains(&id), "no block {id}");
    }
    // Every column's top solid block sits where the heights put it.
    let mut top: std::collections::HashMap<(i32, i32), i32> = std::collections::HashMap::new();
    for (p, b) in &blocks {
        if b.id != ids::WATER {
            let e = top.entry((p[0], p[2])).or_insert(i32::MIN);
            *e = (*e).max(p[1]);
        }
    }
    let (bw, bd) = (v.columns.len() as i32, v.columns[0].len() as i32);
    for bx in (0..bw).step_by(7) {
        for bz in (0..bd).step_by(5) {
            // Blocks are stored relative to the core: x = bx − bw/2, y = height − 16.
            let key = (bx - bw / 2, bz - bd / 2);
            assert_eq!(
                top[&key],
                v.columns[bx as usize][bz as usize] - 16,
                "column {bx}, {bz}"
            );
        }
    }
    // The tallest column is over the map's highest ground.
    let tallest = v.columns.iter().flatten().max().unwrap();
    let (mut best, mut at) = (f32::MIN, (0, 0));
    for ((x, y), &h) in world.blueprint.heights.indexed_iter() {
        if h > best {
            best = h;
            at = (x, y);
        }
    }
    let [x0, y0, x1, y1] = v.pixel_box;
    let scale = (x1 - x0).max(y1 - y0) as f32 / 128.0;
    let (bx, bz) = (
        ((at.0 - x0) as f32 / scale) as usize,
        ((at.1 - y0) as f32 / scale) as usize,
    );
    let near = (bx.saturating_sub(1)..=bx + 1)
        .filter_map(|i| v.columns.get(i))
        .flat_map(|col| (bz.saturating_sub(1)..=bz + 1).filter_map(|j| col.get(j)))
        .max()
        .unwrap();
    assert!(
        tallest - near <= 2,
        "tallest {tallest}, near the summit {near}"
    );
}

#[test]
fn a_gzip_compressed_tag_tree_reads_like_the_plain_one() {
    use islagen::formats::starmade::meta;
    let plain_meta = vector("B_Box").meta;
    let bytes = meta::write(&plain_meta);
    // The tag tree is the last section (data type 2) and runs to the end of the file.
    let (version, sections) = (&bytes[..4], &bytes[4..]);
    let Some(meta::Section::Tags(root)) = plain_meta.sections.last() else {
        panic!("B_Box's meta ends with its tag tree")
    };
    let plain_root = {
        let mut only = plain_meta.clone();
        only.sections = vec![meta::Section::Tags(root.clone())];
        meta::write(&only)[5..].to_vec()
    };
    let head = &sections[..sections.len() - plain_root.len()];
    let gz = {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain_root).unwrap();
        enc.finish().unwrap()
    };
    assert_eq!(&gz[..2], &[0x1F, 0x8B]);
    let compressed = [version, head, &gz].concat();
    let read = meta::read(&compressed, "meta.smbpm").unwrap();
    let Some(meta::Section::Tags(again)) = read.sections.last() else {
        panic!("no tag tree")
    };
    assert!(again.compressed);
    assert_eq!(again.tag, root.tag);
    assert_eq!(read.summary().tags, plain_meta.summary().tags);
    // Written back plain, byte for byte the original.
    assert_eq!(meta::write(&read), bytes);
}

#[test]
fn meta_files_and_v3_headers_rewrite_byte_for_byte() {
    use islagen::formats::starmade::{header, logic, meta};
    let mut metas = 0;
    for path in vectors() {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).unwrap();
            let name = entry.name().to_string();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut data).unwrap();
            if name.ends_with("meta.smbpm") {
                let m = meta::read(&data, &name).unwrap();
                assert_eq!(meta::write(&m), data, "{name}");
                metas += 1;
            } else if name.ends_with("header.smbph") {
                let h = header::read(&data, &name).unwrap();
                if h.version == 3 {
                    assert_eq!(header::write(&h), data, "{name}");
                }
            } else if name.ends_with("logic.smbpl") {
                let l = logic::read(&data, &name).unwrap();
                if l.controller_version.is_some() {
                    assert_eq!(logic::write(&l, 0), data, "{name}");
                }
            }
        }
    }
    assert_eq!(
        metas, 32,
        "every meta file of every vector, children included"
    );
}

/// Regression: export trusted the heights, so a `.dat` holding an infinite, a NaN or
/// a 1e30 height made columns billions of blocks tall. Columns now stand at most as tall as
/// the island is wide, and non-finite heights count as the floor.
#[test]
fn hostile_heights_cannot_make_an_export_taller_than_it_is_wide() {
    use islagen::formats::starmade::export::{island, Entity};
    let world = world_42(256);
    for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e30] {
        let mut bp = world.blueprint.clone();
        bp.heights.iter_mut().step_by(3).for_each(|h| *h = bad);
        let width = 32;
        let v = island(&bp, width, Entity::Asteroid, "hostile").unwrap();
        let tallest = v.columns.iter().flatten().copied().max().unwrap();
        assert!(
            (0..=width as i32).contains(&tallest),
            "{bad}: a column {tallest} blocks tall"
        );
        let blocks: usize = v.blueprint.blocks().len();
        assert!(blocks <= width.pow(3) * 2, "{bad}: {blocks} blocks");
    }
}

/// Regression: an archive's entries were capped one by one (256 MiB × 10 000), not
/// together; now the sum of what they inflate to is capped too.
#[test]
fn an_archive_is_capped_in_total_not_only_per_entry() {
    use islagen::formats::starmade::ZipLimits;
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.sment");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for i in 0..4 {
        zip.start_file(format!("part{i}.smd3"), opts).unwrap();
        zip.write_all(&[0u8; 600]).unwrap();
    }
    zip.finish().unwrap();
    let limits = ZipLimits {
        files: 10,
        entry: 1000,
        total: 2000,
    };
    let e = starmade::read_zip_limited(&path, limits).unwrap_err();
    assert_eq!(e.rule, Rule::LimitExceeded, "{e}");
    assert!(e.to_string().contains("together"), "{e}");
    let roomy = ZipLimits {
        total: 2400,
        ..limits
    };
    assert_eq!(starmade::read_zip_limited(&path, roomy).unwrap().len(), 4);
}

/// Every blueprint in a vector: the vector itself and its docked children, depth first.
fn with_children(bp: &Blueprint) -> Vec<&Blueprint> {
    let mut all = vec![bp];
    for (_, c) in &bp.children {
        all.extend(with_children(c));
    }
    all
}

fn all_vectors() -> Vec<(String, Blueprint)> {
    vectors()
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let bp = starmade::read_path(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, bp)
        })
        .collect()
}

/// The bounding-box rule, checked on every real blueprint: per axis min = lowest block − 17 and
/// max = highest block − 14 in the chunk-32 frame (core at 16), children and chunk-16 vectors
/// included.
#[test]
fn every_vector_bounding_box_is_lowest_minus_17_and_highest_minus_14() {
    use islagen::formats::starmade::header::bounding_box;
    let mut checked = 0;
    for (name, v) in all_vectors() {
        for bp in with_children(&v) {
            let blocks = bp.blocks();
            let (lo, hi) = (0..3)
                .map(|k| {
                    let it = blocks.iter().map(|(p, _)| p[k] + 16);
                    (it.clone().min().unwrap(), it.max().unwrap())
                })
                .fold((vec![], vec![]), |(mut l, mut h), (a, b)| {
                    l.push((a - 17) as f32);
                    h.push((b - 14) as f32);
                    (l, h)
                });
            let h = &bp.header;
            assert_eq!(
                (h.min.to_vec(), h.max.to_vec()),
                (lo, hi),
                "{name}/{}",
                bp.name
            );
            assert_eq!(
                bounding_box(blocks.iter().map(|(p, _)| *p)),
                (h.min, h.max),
                "{name}/{}",
                bp.name
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked, 32,
        "every blueprint of every vector, children included"
    );
    // The README's fact: B_Box spans 13..=19 on each axis.
    assert_eq!(
        (vector("B_Box").header.min, vector("B_Box").header.max),
        ([-4.0; 3], [5.0; 3])
    );
}

/// Whether the core position counts when no block is there: the vectors cannot say (each has a
/// block at 16,16,16); the box counts it, as SMBEdit does.
#[test]
fn the_bounding_box_counts_the_core_position() {
    use islagen::formats::starmade::header::bounding_box;
    for (name, v) in all_vectors() {
        for bp in with_children(&v) {
            assert!(
                bp.blocks().iter().any(|(p, _)| *p == [0, 0, 0]),
                "{name}/{}: no block at the core",
                bp.name
            );
        }
    }
    assert_eq!(
        bounding_box([[3, 4, 5], [7, 8, 9]]),
        ([-1.0; 3], [9.0, 10.0, 11.0])
    );
    assert_eq!(
        bounding_box([[-9, -8, -7], [-3, -4, -5]]),
        ([-10.0, -9.0, -8.0], [2.0; 3])
    );
    assert_eq!(bounding_box([]), ([-1.0; 3], [2.0; 3]));
}

/// Hit points as the game stores them: in every vector a block type holds one value, and none
/// is 127 (the value export once wrote for every block).
#[test]
fn every_vector_stores_one_hit_point_value_per_block_type_and_never_127() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut seen: BTreeMap<u16, BTreeSet<u16>> = BTreeMap::new();
    for (name, v) in all_vectors() {
        for bp in with_children(&v) {
            let mut per_type: BTreeMap<u16, BTreeSet<u16>> = BTreeMap::new();
            for (_, b) in bp.blocks() {
                per_type.entry(b.id).or_default().insert(b.hp);
            }
            for (id, hps) in per_type {
                assert_eq!(hps.len(), 1, "{name}/{}: block {id} has {hps:?}", bp.name);
                assert!(!hps.contains(&127), "{name}/{}: block {id} at 127", bp.name);
                seen.entry(id).or_default().extend(hps);
            }
        }
    }
    // Hull 75, door 100, light 10, power 25, the logic blocks 15, the rails 100.
    for (id, hp) in [
        (598, 75),
        (599, 75),
        (122, 100),
        (55, 10),
        (2, 25),
        (405, 15),
        (410, 15),
        (662, 100),
        (663, 100),
    ] {
        assert_eq!(seen[&id], BTreeSet::from([hp]), "block {id}");
    }
    // No vector holds a terrain block: their full hit points are not in the evidence.
    use islagen::formats::starmade::export::ids;
    for (id, _) in ids::FULL_HP {
        assert!(!seen.contains_key(&id), "a vector holds terrain block {id}");
    }
}

/// Meta versions: below 4 in the chunk-16 vectors, 4 or more where the regions are `.smd3`, and
/// exactly 5 in every header-v3 vector.
#[test]
fn the_meta_version_separates_chunk_16_from_chunk_32() {
    use islagen::formats::starmade::meta::{CHUNK32_VERSION, FIRST_CHUNK32_VERSION};
    for (name, v) in all_vectors() {
        for bp in with_children(&v) {
            let m = bp.meta.version;
            if bp.chunk == 16 {
                assert!(m < FIRST_CHUNK32_VERSION, "{name}: chunk-16 with meta v{m}");
            } else {
                assert!(
                    m >= FIRST_CHUNK32_VERSION,
                    "{name}: chunk-32 with meta v{m}"
                );
            }
            if bp.header.version == 3 {
                assert_eq!(m, CHUNK32_VERSION, "{name}: header v3 with meta v{m}");
            }
        }
    }
}

/// The classification ordinals: the spec's table (and SMBEdit's): each type's default is its
/// lowest ordinal; the station vector holds 9, every ship a ship's 0..=8.
#[test]
fn classification_defaults_are_the_games_ordinals() {
    use islagen::formats::starmade::header::{default_classification, entity};
    for (t, c) in [
        (entity::SHIP, 0),
        (entity::SHOP, 21),
        (entity::STATION, 9),
        (entity::ASTEROID, 18),
        (entity::MANAGED_ASTEROID, 19),
        (entity::PLANET, 20),
    ] {
        assert_eq!(default_classification(t), Some(c), "type {t}");
    }
    assert_eq!(default_classification(6), None);
    assert_eq!(default_classification(-1), None);
    let station = vector("B_Block_Station");
    assert_eq!(station.header.entity_type, entity::STATION);
    assert_eq!(
        station.header.classification,
        default_classification(entity::STATION)
    );
    for (name, v) in all_vectors() {
        for bp in with_children(&v) {
            if let (entity::SHIP, Some(c)) = (bp.header.entity_type, bp.header.classification) {
                assert!((0..=8).contains(&c), "{name}: ship class {c}");
            }
        }
    }
}

/// Regression: a header older than version 3 was rewritten with classification 0, which SMBEdit
/// refuses for every type but a ship. It now gets its type's default.
#[test]
fn a_header_older_than_v3_is_rewritten_with_its_types_default_classification() {
    use islagen::formats::starmade::header::{self, default_classification};
    let old = vector("0_199_132_ship").header;
    assert_eq!((old.version, old.classification), (2, None));
    let again = header::read(&header::write(&old), "header.smbph").unwrap();
    assert_eq!((again.version, again.classification), (3, Some(0)));
    for t in 1..=5 {
        let h = header::Header {
            entity_type: t,
            statistics: None,
            ..old.clone()
        };
        let again = header::read(&header::write(&h), "header.smbph").unwrap();
        assert_eq!(again.classification, default_classification(t), "type {t}");
        assert_eq!((again.min, again.max), (h.min, h.max), "type {t}");
    }
    // Every rewritten vector: a v3 header keeps its classification, an older one gets 0 (all
    // old vectors are ships).
    for (name, v) in all_vectors() {
        let files = starmade::write_files(&v).unwrap();
        let back = starmade::from_files(&files, "", &v.name).unwrap();
        for (a, b) in with_children(&v).into_iter().zip(with_children(&back)) {
            let want = a
                .header
                .classification
                .or(default_classification(a.header.entity_type));
            assert_eq!(b.header.classification, want, "{name}/{}", a.name);
        }
    }
}

/// Every entity kind islagen exports, field by field against the vectors: the station vector
/// for what a non-ship holds, every header-v3 vector for the meta and logic versions, the
/// bounding-box rule every vector follows, hit points per type (never 127).
#[test]
fn every_exported_entity_matches_the_vectors_field_by_field() {
    use islagen::formats::starmade::export::{ids, island, Entity};
    use islagen::formats::starmade::header::{bounding_box, default_classification, entity};
    use islagen::formats::starmade::meta::CHUNK32_VERSION;
    let world = world_42(256);
    let station = vector("B_Block_Station");
    let v3_metas: std::collections::BTreeSet<i32> = all_vectors()
        .iter()
        .filter(|(_, v)| v.header.version == 3)
        .map(|(_, v)| v.meta.version)
        .collect();
    assert_eq!(
        v3_metas,
        std::collections::BTreeSet::from([CHUNK32_VERSION])
    );
    let v3_logic: std::collections::BTreeSet<(i32, Option<i32>)> = all_vectors()
        .iter()
        .filter(|(_, v)| v.header.version == 3)
        .map(|(_, v)| (v.logic.version, v.logic.controller_version))
        .collect();
    for kind in Entity::ALL {
        let code = match kind {
            Entity::Asteroid => entity::ASTEROID,
            Entity::ManagedAsteroid => entity::MANAGED_ASTEROID,
            Entity::Planet => entity::PLANET,
            Entity::Station => entity::STATION,
        };
        assert_eq!(kind.code(), code);
        assert_eq!(Some(kind.classification()), default_classification(code));
        let v = island(&world.blueprint, 48, kind, "Island").unwrap();
        let files = starmade::write_files(&v.blueprint).unwrap();
        let bp = starmade::from_files(&files, "", "Island").unwrap();
        let (h, s) = (&bp.header, &station.header);
        assert_eq!(
            (h.version, &h.game_version, &h.statistics),
            (s.version, &s.game_version, &s.statistics),
            "{kind:?}: header version, game version, statistics"
        );
        assert_eq!(h.entity_type, code, "{kind:?}");
        assert_eq!(h.classification, default_classification(code), "{kind:?}");
        if kind == Entity::Station {
            assert_eq!(
                (h.entity_type, h.classification),
                (s.entity_type, s.classification)
            );
        }
        let blocks = bp.blocks();
        assert_eq!(
            (h.min, h.max),
            bounding_box(blocks.iter().map(|(p, _)| *p)),
            "{kind:?}: bounding box"
        );
        assert!(bp.element_map_mismatches().is_empty(), "{kind:?}");
        assert_eq!(bp.meta.version, CHUNK32_VERSION, "{kind:?}: meta version");
        assert!(v3_logic.contains(&(bp.logic.version, bp.logic.controller_version)));
        assert!(bp.logic.controllers.is_empty());
        assert_eq!(bp.chunk, 32);
        assert!(bp.segments.iter().all(|g| g.version == 3), "{kind:?}");
        for (p, b) in &blocks {
            assert_eq!(b.hp, ids::full_hp(b.id), "{kind:?}: block {b:?} at {p:?}");
            assert_ne!(b.hp, 127);
            assert!(!b.active && b.orientation == 0, "{kind:?}: {b:?}");
        }
    }
}

/// Rivers are water in the export: every block column whose sampled pixel is a river pixel
/// holds water above its bed — a river a metre or two deep is still water at tens of metres
/// per block (before, every such column was a dry strip of sand: the depth floored to 0).
#[test]
fn river_columns_hold_water() {
    use islagen::formats::starmade::export::{ids, island, Entity};
    use std::collections::{HashMap, HashSet};
    let world = world_42(1024);
    let n = world.blueprint.side();
    let river: HashSet<u32> = world.river_pixels().into_iter().collect();
    assert!(
        world.rivers.as_ref().is_some_and(|r| r.rivers > 0) && !river.is_empty(),
        "seed 42 has rivers"
    );
    for width in [128, 256] {
        let v = island(&world.blueprint, width, Entity::Asteroid, "rivers").unwrap();
        // Per column: the lowest water block and the highest solid one.
        let (mut water, mut solid) = (HashMap::new(), HashMap::new());
        for (p, b) in v.blueprint.blocks() {
            let (map, y) = match b.id == ids::WATER {
                true => (&mut water, -p[1]),
                false => (&mut solid, p[1]),
            };
            let e = map.entry((p[0], p[2])).or_insert(i32::MIN);
            *e = (*e).max(y);
        }
        let (bw, bd) = (v.columns.len(), v.columns[0].len());
        let (mut on_river, mut dry) = (0, Vec::new());
        for bx in 0..bw {
            for bz in 0..bd {
                let (x, y) = v.sampled_pixel(bx, bz);
                if !river.contains(&((x * n + y) as u32)) {
                    continue;
                }
                on_river += 1;
                let key = (bx as i32 - bw as i32 / 2, bz as i32 - bd as i32 / 2);
                match (water.get(&key), solid.get(&key)) {
                    (Some(&w), Some(&s)) if -w > s => {}
                    _ => dry.push((bx, bz, x, y)),
                }
            }
        }
        eprintln!("width {width}: {on_river} river columns, {} dry", dry.len());
        assert!(on_river > 0, "width {width}: no column samples a river");
        assert!(
            dry.is_empty(),
            "width {width}: {} of {on_river} river columns hold no water, e.g. {:?}",
            dry.len(),
            &dry[..dry.len().min(5)]
        );
    }
}
