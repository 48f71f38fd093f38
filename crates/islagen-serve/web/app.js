// islagen serve: the page's script. Plain modern JavaScript, no build step; Leaflet (vendored
// under /static/vendor/leaflet/) draws the map. Everything the page shows comes from the HTTP
// API of `islagen serve` (crates/islagen-serve/src/): /api/worlds, /api/world, /api/tile, /api/probe,
// /api/view.png, /api/file, /api/thumbnail.png, /api/dials, /api/preview, /api/generate,
// /api/job, /api/job/cancel, /api/shape/save.
//
// Stable hooks for tests and scripts (ids unless written otherwise):
//   Routing:   location.hash `#explore` (world list), `#world=<URL-encoded id>` (a world's
//              map), `#tune` (dials and preview). Tabs: #tab-explore, #tab-tune.
//   Errors:    #error (hidden unless an API call failed), its text in #error-text.
//   Explore:   #worlds: one `li.world[data-world=<id>]` per world, its link `a.open-world`,
//              thumbnail `img.thumb`; `li.world.broken` when the header could not be read.
//              #sweeps: one `table.sweep[data-sweep=<folder>]` per sweep, its header cells
//              `th[data-col=<column>]` sort on click (again: reverse), `tr[data-world]` rows.
//              #world-empty (shown while no world is open), #world (the open world,
//              `data-world=<id>` once loaded), #world-title, #map (the Leaflet map;
//              `data-zoom` follows the zoom), #readout (cursor readout, with
//              data-x / data-y = the map pixel under the cursor, data-height-m, data-biome,
//              once a probe answered), #layers: base layers are radio inputs `#layer-height`,
//              `#layer-biomes`; overlays are checkboxes `#layer-water`, `#layer-towns`,
//              `#layer-roads`, `#layer-rivers`, `#layer-contours`, `#layer-slope` (disabled
//              when the world lacks them). #selection (what a click found), #downloads
//              (`a.export` links), #download-view (current view as PNG), #params.
//   3D:        #view-3d opens #view3d over the map (the region the map shows): its canvas
//              #view3d-canvas, #view3d-exag (vertical exaggeration), #view3d-state (samples and
//              spacing), #view3d-close; `#view3d[data-ready]` once the region is drawn.
//   Tune:      #dials: one `.dial[data-key=<Key>]` per dial, with the input `#dial-<Key>`
//              (number / checkbox / select; numbers also a slider `#dial-<Key>-range`) and
//              its error `#dial-<Key>-error`. #seed, #seed-error, #random-seed, #preview-layer,
//              #preview (the image; `data-seq` counts previews shown, `data-draft` is 1 for
//              a draft), #preview-state,
//              #preview-stats, #preview-note, #gen-size, #generate, #job-cancel,
//              #job-progress, #job-stage, #job-message, #save-config.
//   Paint:     #paint-tool (none, land, sea, relief, rock, pin), #paint-size (brush radius,
//              preview pixels), #paint-tier (a pin's tier), #paint-undo, #paint-clear, the
//              canvas #paint-canvas over #preview (`data-strokes` counts strokes and pins),
//              #paint-save (writes the painting and its ServerConfig.json beside the worlds;
//              #paint-message then names the folder, `data-folder`). #preview-3d shows each
//              preview in 3D too, on #preview3d-canvas (`data-shown` = the preview's data-seq).
//              What is painted goes with each preview as `shape` (masks as 256² grayscale
//              PNGs, pins as GeoJSON in the world's metres).
//   window.islagen: { map (the Leaflet map or null), world (the open world's /api/world
//              answer), tilesLoaded (tile images loaded so far), probes (probe answers),
//              previews (previews shown), drafts (drafts among them),
//              mapPixelToContainer(x, y) -> {x, y} page pixels,
//              settled() -> true once the map is still and every shown tile has loaded,
//              view3d (the 3D renderer once made: its `frames` counts frames drawn) }.
'use strict';

const $ = (sel) => document.querySelector(sel);

/** Creates an element: attributes (`class`, `text`, `on<event>` handlers, others as given). */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c);
  }
  return e;
}

const enc = encodeURIComponent;

const fmt = {
  bytes(n) {
    if (n >= 1 << 30) return (n / (1 << 30)).toFixed(1) + ' GiB';
    if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MiB';
    if (n >= 1 << 10) return (n / (1 << 10)).toFixed(0) + ' KiB';
    return n + ' B';
  },
  metres(m) {
    return Math.abs(m) >= 10000 ? (m / 1000).toFixed(2) + ' km' : m.toFixed(1) + ' m';
  },
  km(m) {
    return m >= 1000 ? (m / 1000).toFixed(2) + ' km' : m.toFixed(0) + ' m';
  },
  date(unix) {
    return new Date(unix * 1000).toLocaleString();
  },
  value(v) {
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(+v.toFixed(4));
    if (typeof v === 'string') return v;
    return JSON.stringify(v);
  },
};

// ---------------------------------------------------------------------------------------------
// API and errors

class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** Fetches `path`; a non-2xx answer throws an ApiError with the server's `error` message. */
async function api(path, options) {
  const r = await fetch(path, options);
  if (!r.ok) {
    let body = null;
    try {
      body = await r.json();
    } catch (_) {
      /* not JSON: the status says it */
    }
    const msg = body && body.error ? body.error : `${r.status} ${r.statusText}`;
    throw new ApiError(r.status, msg, body);
  }
  return r;
}

const getJson = async (path) => (await api(path)).json();

const errors = [];

/** Shows `message` in the error panel (the last few, newest last). */
function showError(context, err) {
  const msg = `${context}: ${err && err.message ? err.message : err}`;
  if (errors[errors.length - 1] === msg) return;
  errors.push(msg);
  errors.splice(0, Math.max(0, errors.length - 6));
  $('#error-text').textContent = errors.join('\n');
  $('#error').hidden = false;
}

function clearErrors() {
  errors.length = 0;
  $('#error').hidden = true;
  $('#error-text').textContent = '';
}

// ---------------------------------------------------------------------------------------------
// Explore: the world list and sweep tables

const state = {
  map: null,
  world: null,
  tilesLoaded: 0,
  probes: 0,
  previews: 0,
  drafts: 0,
  mapPixelToContainer: null,
  view3d: null,
  settled() {
    const m = state.map;
    if (!m || m._animatingZoom || (m._panAnim && m._panAnim._inProgress)) return false;
    const layers = [view.base, ...view.overlays.values()].filter(Boolean);
    return layers.length > 0 && layers.every((l) => !l.isLoading());
  },
};
window.islagen = state;

async function loadWorlds() {
  let data;
  try {
    data = await getJson('/api/worlds');
  } catch (e) {
    showError('world list', e);
    $('#worlds').replaceChildren(el('li', { class: 'muted', text: 'the world list failed' }));
    return;
  }
  $('#dir').textContent = data.dir;
  const items = data.worlds.map(worldItem);
  if (!items.length) items.push(el('li', { class: 'muted', text: 'no blueprints (*.dat) here' }));
  $('#worlds').replaceChildren(...items);
  $('#sweeps').replaceChildren(...data.sweeps.map(sweepTable));
  markOpenWorld();
}

function worldItem(w) {
  const meta = w.error
    ? el('span', { class: 'world-error', text: w.error })
    : el('span', {
        class: 'muted',
        text: `${w.map_size} px · seed ${w.seed ?? "not recorded"} · ${w.format} · ${fmt.bytes(w.bytes)} · ${fmt.date(w.modified)}`,
      });
  const thumb = w.error
    ? el('div', { class: 'thumb broken', text: '!' })
    : el('img', {
        class: 'thumb', loading: 'lazy', alt: '', src: `/api/thumbnail.png?w=${enc(w.id)}`,
        onerror: (e) => e.target.replaceWith(el('div', { class: 'thumb broken', title: 'no thumbnail', text: '!' })),
      });
  return el(
    'li',
    { class: w.error ? 'world broken' : 'world', dataset: { world: w.id } },
    el('a', { class: 'open-world', href: `#world=${enc(w.id)}` }, thumb,
      el('span', { class: 'world-text' }, el('span', { class: 'name', text: w.id }), meta)),
  );
}

function sweepTable(s) {
  const columns = s.columns;
  const table = el('table', { class: 'sweep', dataset: { sweep: s.id } });
  const sort = { col: null, desc: false };
  const head = el('tr', {}, el('th', { text: '' }),
    columns.map((c) => el('th', { dataset: { col: c }, title: `sort by ${c}`, text: c, onclick: () => sortBy(c) })));
  const body = el('tbody');
  const rows = s.rows.map((row) => {
    // Each row is its cells in column order, and its world (the server's, over any column).
    const r = {};
    columns.forEach((c, i) => { r[c] = row.values[i]; });
    r.world = row.world;
    const cells = columns.map((c) => el('td', { text: r[c] === null || r[c] === undefined ? '' : fmt.value(r[c]) }));
    const thumb = r.world
      ? el('a', { href: `#world=${enc(r.world)}` },
          el('img', { class: 'thumb small', loading: 'lazy', alt: '', src: `/api/thumbnail.png?w=${enc(r.world)}` }))
      : '';
    const tr = el('tr', { dataset: r.world ? { world: r.world } : {} }, el('td', {}, thumb), cells);
    if (r.world) tr.addEventListener('click', () => { location.hash = `#world=${enc(r.world)}`; });
    return { data: r, tr };
  });
  function render() {
    body.replaceChildren(...rows.map((r) => r.tr));
    for (const th of head.querySelectorAll('th[data-col]')) {
      th.classList.toggle('sorted', th.dataset.col === sort.col);
      th.classList.toggle('desc', th.dataset.col === sort.col && sort.desc);
    }
  }
  function sortBy(col) {
    sort.desc = sort.col === col ? !sort.desc : false;
    sort.col = col;
    rows.sort((a, b) => compare(a.data[col], b.data[col]) * (sort.desc ? -1 : 1));
    render();
  }
  table.append(el('thead', {}, head), body);
  render();
  const sheet = s.contact_sheet
    ? el('a', { href: `/api/file?path=${enc(s.contact_sheet)}`, target: '_blank', text: 'contact sheet' })
    : null;
  return el('details', { class: 'sweep-box', open: true },
    el('summary', { text: `${s.id} — ${s.rows.length} worlds ` }), sheet, el('div', { class: 'table-wrap' }, table));
}

/** Numbers by value, everything else as text; empty cells last. */
function compare(a, b) {
  const empty = (v) => v === null || v === undefined || v === '';
  if (empty(a) || empty(b)) return empty(a) - empty(b);
  const na = Number(a);
  const nb = Number(b);
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return String(a).localeCompare(String(b));
}

function markOpenWorld() {
  const id = state.world ? state.world.id : null;
  for (const li of document.querySelectorAll('#worlds li.world')) {
    li.classList.toggle('open', li.dataset.world === id);
  }
}

// ---------------------------------------------------------------------------------------------
// Explore: one world as a map

const view = {
  base: null, // the base tileLayer
  overlays: new Map(), // layer id -> tileLayer (only those switched on)
  openSeq: 0,
};

function closeWorld() {
  close3d();
  if (state.map) state.map.remove();
  state.map = null;
  state.world = null;
  view.base = null;
  view.overlays.clear();
  $('#world').hidden = true;
  $('#world-empty').hidden = false;
  $('#world').removeAttribute('data-world');
  $('#tab-explore').setAttribute('href', '#explore');
  markOpenWorld();
}

async function openWorld(id) {
  if (state.world && state.world.id === id) return;
  closeWorld();
  const seq = ++view.openSeq;
  $('#world').hidden = false;
  $('#world-empty').hidden = true;
  $('#tab-explore').setAttribute('href', `#world=${enc(id)}`); // back from Tune to this world
  $('#world-title').textContent = id;
  $('#world-meta').textContent = 'loading…';
  let info;
  try {
    info = await getJson(`/api/world?w=${enc(id)}`);
  } catch (e) {
    if (seq !== view.openSeq) return;
    $('#world-meta').textContent = 'this world cannot be shown';
    showError(id, e);
    return;
  }
  if (seq !== view.openSeq) return;
  state.world = info;
  $('#world').dataset.world = id;
  $('#world-meta').textContent =
    `${info.map_size} px · seed ${info.seed ?? "not recorded"} · ${info.format} · ${info.metres_per_px} m/px · ` +
    `height ${fmt.metres(info.height_range_m[0])} … ${fmt.metres(info.height_range_m[1])}`;
  makeMap(info);
  renderLayerControls(info);
  renderParams(info.params);
  renderDownloads(info);
  markOpenWorld();
}

/** North up, map pixel (x, y) at LatLng(lat = y, lng = x); zoom 0 shows the map in one tile. */
function makeMap(info) {
  const size = info.map_size;
  // As the server draws tiles: one map pixel is one screen pixel at max_zoom (tile_size / size
  // only when size is tile_size × 2^k; a 640 world's zoom-0 tile covers 1024 map pixels).
  const s = 1 / Math.pow(2, info.max_zoom);
  const crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(s, 0, s, 0) });
  const bounds = L.latLngBounds([0, 0], [size, size]);
  const map = L.map('map', {
    crs,
    minZoom: 0,
    maxZoom: info.max_zoom + 3,
    maxBounds: bounds.pad(0.25),
    maxBoundsViscosity: 0.7,
    attributionControl: false,
    zoomControl: true,
  });
  map.fitBounds(bounds);
  map.on('zoomend', () => { $('#map').dataset.zoom = String(map.getZoom()); });
  $('#map').dataset.zoom = String(map.getZoom());
  map.on('mousemove', (e) => readout.move(e.latlng));
  map.on('mouseout', () => readout.leave());
  map.on('click', (e) => select(e.latlng));
  map.on('moveend zoomend', updateViewLink);
  state.map = map;
  state.mapPixelToContainer = (x, y) => {
    const p = map.latLngToContainerPoint([y, x]);
    const r = $('#map').getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  };
  view.bounds = bounds;
}

function tileLayer(info, layer, zIndex) {
  const url = `/api/tile/${layer}/{z}/{x}/{y}.png?w=${enc(info.id)}`;
  const t = L.tileLayer(url, {
    tileSize: info.tile_size,
    minZoom: 0,
    maxZoom: info.max_zoom + 3,
    maxNativeZoom: info.max_zoom + 3,
    noWrap: true,
    bounds: view.bounds,
    zIndex,
    className: `tiles-${layer}`,
  });
  t.on('tileload', () => { state.tilesLoaded += 1; });
  t.on('tileerror', (e) => showError(`tile ${layer}`, e.tile && e.tile.src ? `could not load ${e.tile.src}` : 'failed'));
  return t;
}

const DEFAULT_OVERLAYS = new Set(['towns', 'roads', 'rivers']);

function renderLayerControls(info) {
  const bases = info.layers.filter((l) => l.kind === 'base');
  const overlays = info.layers.filter((l) => l.kind === 'overlay');
  const firstBase = bases.find((l) => l.available);
  const controls = [];
  for (const l of bases) {
    const input = el('input', {
      type: 'radio', name: 'base', id: `layer-${l.id}`, value: l.id,
      disabled: !l.available, checked: firstBase && l.id === firstBase.id,
      onchange: () => setBase(l.id),
    });
    controls.push(el('label', { class: l.available ? 'layer' : 'layer unavailable' }, input, ' ', l.name,
      l.available ? null : el('span', { class: 'muted', text: ' (not in this world)' })));
  }
  controls.push(el('hr'));
  overlays.forEach((l, i) => {
    const on = l.available && DEFAULT_OVERLAYS.has(l.id);
    const input = el('input', {
      type: 'checkbox', id: `layer-${l.id}`, value: l.id, disabled: !l.available, checked: on,
      onchange: (e) => setOverlay(l.id, e.target.checked, 10 + i),
    });
    controls.push(el('label', { class: l.available ? 'layer' : 'layer unavailable' }, input, ' ', l.name,
      l.available ? null : el('span', { class: 'muted', text: ' (not in this world)' })));
    if (on) setOverlay(l.id, true, 10 + i);
  });
  $('#layers').replaceChildren(...controls);
  if (firstBase) setBase(firstBase.id);
}

function setBase(id) {
  if (!state.map) return;
  if (view.base) state.map.removeLayer(view.base);
  view.base = tileLayer(state.world, id, 1);
  view.base.layerId = id;
  view.base.addTo(state.map);
  updateViewLink();
}

function setOverlay(id, on, zIndex) {
  if (!state.map) return;
  const old = view.overlays.get(id);
  if (old) state.map.removeLayer(old);
  view.overlays.delete(id);
  if (on) {
    const t = tileLayer(state.world, id, zIndex);
    t.addTo(state.map);
    view.overlays.set(id, t);
  }
  updateViewLink();
}

/** The layers shown, bottom first, as /api/view.png wants them. */
function shownLayers() {
  const ids = view.base ? [view.base.layerId] : [];
  const order = state.world ? state.world.layers.map((l) => l.id) : [];
  return ids.concat(order.filter((id) => view.overlays.has(id)));
}

/** The map pixels the map shows, clipped to the map: { x0, y0, x1, y1 } (y down). */
function viewRegion() {
  const size = state.world.map_size;
  const b = state.map.getBounds();
  const clamp = (v) => Math.min(size, Math.max(0, v));
  const x0 = Math.floor(clamp(b.getWest()));
  const x1 = Math.ceil(clamp(b.getEast()));
  const ya = Math.floor(clamp(b.getSouth()));
  const yb = Math.ceil(clamp(b.getNorth()));
  return { x0, y0: Math.min(ya, yb), x1, y1: Math.max(ya, yb) };
}

function updateViewLink() {
  const a = $('#download-view');
  if (!state.map || !state.world) return;
  const { x0, y0, x1, y1 } = viewRegion();
  const scale = Math.pow(2, state.map.getZoom() - state.world.max_zoom);
  const width = Math.max(1, Math.min(state.world.limits.view_px, Math.round((x1 - x0) * scale)));
  a.href = `/api/view.png?w=${enc(state.world.id)}&layers=${shownLayers().join(',')}` +
    `&x0=${x0}&y0=${y0}&x1=${x1}&y1=${y1}&width=${width}`;
  const stem = state.world.id.replace(/\.dat$/i, '').replace(/[^A-Za-z0-9_.-]+/g, '_');
  a.setAttribute('download', `${stem}_view_${x0}_${y0}_${x1}_${y1}.png`);
}

/** The 3D view: its renderer (made on first use) and the request in flight. */
const view3d = { renderer: null, seq: 0 };

/** Opens the 3D view of the region the map shows: its surface, coloured by the shown layers. */
async function open3d() {
  if (!state.map || !state.world) return;
  const seq = ++view3d.seq;
  const panel = $('#view3d');
  panel.hidden = false;
  panel.removeAttribute('data-ready');
  $('#view3d-state').textContent = 'loading…';
  const { x0, y0, x1, y1 } = viewRegion();
  const q = `w=${enc(state.world.id)}&x0=${x0}&y0=${y0}&x1=${x1}&y1=${y1}`;
  try {
    const r = await api(`/api/surface?${q}`);
    const info = JSON.parse(r.headers.get('x-islagen-surface'));
    const metres = new Float32Array(await r.arrayBuffer());
    // The colour picture at two pixels a sample (at most the server's widest view).
    const width = Math.max(2, Math.min(state.world.limits.view_px, 2 * info.nx));
    const [rx0, ry0, rx1, ry1] = info.region;
    const png = await api(`/api/view.png?w=${enc(state.world.id)}&layers=${shownLayers().join(',')}` +
      `&x0=${rx0}&y0=${ry0}&x1=${rx1}&y1=${ry1}&width=${width}`);
    const image = await createImageBitmap(await png.blob());
    if (seq !== view3d.seq || panel.hidden) return;
    if (!view3d.renderer) {
      view3d.renderer = Terrain3D.create($('#view3d-canvas'));
      state.view3d = view3d.renderer;
    }
    view3d.renderer.setExaggeration(Number($('#view3d-exag').value));
    view3d.renderer.show({ nx: info.nx, ny: info.ny, stepM: info.step_m, metres, image });
    $('#view3d-state').textContent =
      `${info.nx} × ${info.ny} samples, ${fmt.metres(info.step_m)} apart`;
    requestAnimationFrame(() => requestAnimationFrame(() => { panel.dataset.ready = '1'; }));
  } catch (e) {
    if (seq !== view3d.seq) return;
    $('#view3d-state').textContent = 'cannot show this region in 3D';
    showError('3D view', e);
  }
}

function close3d() {
  view3d.seq += 1;
  $('#view3d').hidden = true;
  $('#view3d').removeAttribute('data-ready');
}

function renderParams(params) {
  const sections = Object.entries(params || {}).map(([tag, values]) => {
    const rows = typeof values === 'object' && values !== null
      ? Object.entries(values).map(([k, v]) => el('tr', {}, el('th', { text: k }), el('td', { text: fmt.value(v) })))
      : [el('tr', {}, el('td', { text: fmt.value(values) }))];
    return el('details', { open: true, dataset: { section: tag } }, el('summary', { text: tag }),
      el('table', { class: 'params' }, el('tbody', {}, rows)));
  });
  if (!sections.length) sections.push(el('p', { class: 'muted', text: 'no parameters recorded in this blueprint' }));
  $('#params').replaceChildren(...sections);
}

function renderDownloads(info) {
  const items = (info.exports || []).map((x) => el('li', {},
    el('a', { class: 'export', href: `/api/file?path=${enc(x.path)}`, download: x.name, text: x.name }),
    el('span', { class: 'muted', text: ` ${fmt.bytes(x.bytes)}` })));
  if (!items.length) items.push(el('li', { class: 'muted', text: 'no exports next to this world' }));
  $('#downloads').replaceChildren(...items);
  updateViewLink();
}

function insideMap(latlng) {
  const size = state.world ? state.world.map_size : 0;
  return latlng.lng >= 0 && latlng.lat >= 0 && latlng.lng < size && latlng.lat < size;
}

/** The cursor readout: at most one probe in flight, then the latest position wins. */
const readout = {
  inFlight: false,
  next: null,
  lastSent: 0,
  timer: null,
  move(latlng) {
    if (!state.world) return;
    if (!insideMap(latlng)) {
      this.next = null;
      this.show(null, 'outside the map');
      return;
    }
    this.next = { x: +latlng.lng.toFixed(2), y: +latlng.lat.toFixed(2), world: state.world.id };
    this.pump();
  },
  leave() {
    this.next = null;
  },
  pump() {
    if (this.inFlight || !this.next || this.timer) return;
    const wait = this.lastSent + 60 - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => { this.timer = null; this.pump(); }, wait);
      return;
    }
    const p = this.next;
    this.next = null;
    this.inFlight = true;
    this.lastSent = performance.now();
    getJson(`/api/probe?w=${enc(p.world)}&x=${p.x}&y=${p.y}`)
      .then((r) => {
        if (state.world && state.world.id === p.world) {
          state.probes += 1;
          this.show(r);
        }
      })
      .catch((e) => showError('probe', e))
      .finally(() => { this.inFlight = false; this.pump(); });
  },
  show(r, message) {
    const box = $('#readout');
    if (!r) {
      box.textContent = message;
      for (const k of ['x', 'y', 'heightM', 'biome']) delete box.dataset[k];
      return;
    }
    box.dataset.x = String(Math.floor(r.x));
    box.dataset.y = String(Math.floor(r.y));
    box.dataset.heightM = String(r.height_m);
    box.dataset.biome = r.biome;
    const parts = [
      el('span', { text: `x ${r.x.toFixed(1)}  y ${r.y.toFixed(1)} px` }),
      el('span', { text: `${fmt.metres(r.x_m)}, ${fmt.metres(r.y_m)}` }),
      el('b', { class: 'height', text: `${r.height_m.toFixed(1)} m` }),
      el('span', { text: r.biome }),
    ];
    if (r.water) parts.push(el('span', { text: `${r.water.type} #${r.water.id}, level ${r.water.level_m.toFixed(1)} m` }));
    if (r.town) parts.push(el('span', { text: `nearest town: ${townName(r.town)}, ${fmt.metres(r.town.distance_m)}` }));
    box.replaceChildren(...parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
  },
};

function townName(t) {
  return `${t.tier} #${t.index}${t.name ? ` “${t.name}”` : ''}`;
}

/** A click: the town or road under the cursor (within a few screen pixels), with tier/length. */
async function select(latlng) {
  if (!state.world || !insideMap(latlng)) return;
  const perPx = Math.pow(2, state.map.getZoom() - state.world.max_zoom); // screen px per map px
  const r = Math.max(1, Math.min(state.world.limits.probe_radius_px, Math.ceil(8 / perPx)));
  const id = state.world.id;
  let p;
  try {
    p = await getJson(`/api/probe?w=${enc(id)}&x=${latlng.lng.toFixed(2)}&y=${latlng.lat.toFixed(2)}&r=${r}`);
  } catch (e) {
    showError('probe', e);
    return;
  }
  if (!state.world || state.world.id !== id) return;
  const near = r * state.world.metres_per_px;
  const lines = [];
  if (p.town && p.town.distance_m <= near) {
    const name = p.town.name ? ` “${p.town.name}”` : '';
    lines.push(`Town #${p.town.index}${name}: tier ${p.town.tier}`);
  }
  if (p.road) {
    lines.push(`Road: tier ${p.road.tier}, ${fmt.km(p.road.length_m)} long (${fmt.metres(p.road.distance_m)} away)`);
  }
  if (!lines.length) lines.push(`Nothing here: ${p.biome}, ${p.height_m.toFixed(1)} m`);
  const box = $('#selection');
  box.classList.remove('muted');
  box.replaceChildren(...lines.map((t) => el('div', { text: t })));
  const content = el('div', { class: 'popup' }, lines.map((t) => el('div', { text: t })));
  L.popup().setLatLng(latlng).setContent(content).openOn(state.map);
}

// ---------------------------------------------------------------------------------------------
// Tune: dials, seed, preview, full-size generation

const tune = {
  dials: null, // the /api/dials answer
  values: {}, // key -> value
  seq: 0, // previews asked for
  shown: 0, // latest preview shown
  abort: null,
  timer: null,
  objectUrl: null,
  poll: null,
};

async function loadDials() {
  if (tune.dials) return;
  try {
    tune.dials = await getJson('/api/dials');
  } catch (e) {
    showError('dials', e);
    $('#dials').replaceChildren(el('p', { class: 'muted', text: 'the dials could not be loaded' }));
    return;
  }
  const groups = new Map();
  for (const d of tune.dials.dials) {
    tune.values[d.key] = d.default;
    const g = d.group || 'other';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(dialRow(d));
  }
  sizeOptions(worldKey('MapSize'));
  $('#dials').replaceChildren(...[...groups].map(([g, rows]) =>
    el('fieldset', { dataset: { group: g } }, el('legend', { text: g }), rows)));
  requestPreview(0);
}

/** A key the page has its own box for (MapSize, WorldSeed): its range and default, served
 *  with the dials from the one key table. */
function worldKey(key) {
  return ((tune.dials && tune.dials.world) || []).find(k => k.key === key) || null;
}

/** The generation's sizes: the powers of two in MapSize's range. */
function sizeOptions(key) {
  if (!key) return;
  const opts = [];
  for (let s = key.min; s <= key.max; s *= 2) {
    opts.push(el('option', { value: s, text: `${s} × ${s}`, selected: s === key.default }));
  }
  $('#gen-size').replaceChildren(...opts);
}

function dialRow(d) {
  const id = `dial-${d.key}`;
  const onChange = (v) => {
    tune.values[d.key] = v;
    $(`#${id}-error`).textContent = '';
    requestPreview();
  };
  let inputs;
  if (d.type === 'bool') {
    inputs = [el('input', { type: 'checkbox', id, checked: !!d.default, onchange: (e) => onChange(e.target.checked) })];
  } else if (d.type === 'enum') {
    inputs = [el('select', { id, onchange: (e) => onChange(e.target.value) },
      (d.options || []).map((o) => el('option', { value: o, text: o, selected: o === d.default })))];
  } else {
    const step = d.step || (d.type === 'int' ? 1 : 'any');
    const parse = (s) => (d.type === 'int' ? parseInt(s, 10) : parseFloat(s));
    const num = el('input', { type: 'number', id, step, min: d.min, max: d.max, value: d.default });
    const hasRange = typeof d.min === 'number' && typeof d.max === 'number';
    const range = hasRange
      ? el('input', { type: 'range', id: `${id}-range`, min: d.min, max: d.max, step, value: d.default, tabindex: -1 })
      : null;
    num.addEventListener('input', () => {
      const v = parse(num.value);
      if (num.value === '' || Number.isNaN(v)) {
        $(`#${id}-error`).textContent = 'a number, please';
        return;
      }
      if (range) range.value = v;
      onChange(v);
    });
    if (range) {
      range.addEventListener('input', () => {
        num.value = range.value;
        onChange(parse(range.value));
      });
    }
    inputs = [range, num];
  }
  return el('div', { class: 'dial', dataset: { key: d.key } },
    el('label', { for: id, title: d.help || '', text: d.key }),
    el('span', { class: 'inputs' }, inputs, d.unit ? el('span', { class: 'unit', text: d.unit }) : null),
    el('span', { class: 'field-error', id: `${id}-error` }),
    d.help ? el('small', { class: 'help', text: d.help }) : null);
}

// ---------------------------------------------------------------------------------------------
// Paint: masks and pins drawn over the preview, sent with it

const MASK = 256; // mask pixels a side
const PREVIEW_PX = 512;
const WORLD_M = 8192;
const paint = { island: null, relief: null, rock: null, pins: [], undo: [], down: false, last: null, strokes: 0 };

function painted() {
  return paint.island || paint.relief || paint.rock || paint.pins.length > 0;
}

function snapshot() {
  const copy = (m) => (m ? m.slice() : null);
  return { island: copy(paint.island), relief: copy(paint.relief), rock: copy(paint.rock), pins: paint.pins.slice() };
}

/** The island mask to paint on: first, the land the preview shows (sea is blue in every picture). */
function islandMask() {
  if (paint.island) return paint.island;
  const c = el('canvas', { width: MASK, height: MASK });
  const g = c.getContext('2d');
  g.drawImage($('#preview'), 0, 0, MASK, MASK);
  const px = g.getImageData(0, 0, MASK, MASK).data;
  const m = new Uint8Array(MASK * MASK);
  for (let i = 0; i < m.length; i++) {
    const [r, gr, b] = [px[4 * i], px[4 * i + 1], px[4 * i + 2]];
    m[i] = b > r + 20 && b >= gr ? 0 : 255;
  }
  paint.island = m;
  return m;
}

/** Paints one dab of the current tool at preview pixel (x, y). */
function dab(tool, x, y) {
  const r = Number($('#paint-size').value) * MASK / PREVIEW_PX;
  const [cx, cy] = [x * MASK / PREVIEW_PX, y * MASK / PREVIEW_PX];
  let m;
  if (tool === 'land' || tool === 'sea') m = islandMask();
  else if (tool === 'relief') m = paint.relief || (paint.relief = new Uint8Array(MASK * MASK));
  else m = paint.rock || (paint.rock = new Uint8Array(MASK * MASK));
  for (let j = Math.max(0, Math.floor(cy - r)); j <= Math.min(MASK - 1, Math.ceil(cy + r)); j++) {
    for (let i = Math.max(0, Math.floor(cx - r)); i <= Math.min(MASK - 1, Math.ceil(cx + r)); i++) {
      const d = Math.hypot(i + 0.5 - cx, j + 0.5 - cy) / r;
      if (d > 1) continue;
      const k = j * MASK + i;
      if (tool === 'sea') m[k] = 0;
      else if (tool === 'land' || tool === 'rock') m[k] = 255;
      else m[k] = Math.max(m[k], Math.round(255 * (1 - d * d))); // a rounded mountain
    }
  }
}

/** Dabs along the segment from the last point to (x, y). */
function strokeTo(tool, x, y) {
  const [x0, y0] = paint.last || [x, y];
  const step = Math.max(1, Number($('#paint-size').value) / 3);
  const n = Math.max(1, Math.ceil(Math.hypot(x - x0, y - y0) / step));
  for (let k = 1; k <= n; k++) dab(tool, x0 + (x - x0) * k / n, y0 + (y - y0) * k / n);
  paint.last = [x, y];
  drawPaint();
}

/** The overlay: mountains brown, hard rock grey, the coast being painted, pins as rings. */
function drawPaint() {
  const canvas = $('#paint-canvas');
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  const layer = el('canvas', { width: MASK, height: MASK });
  const lg = layer.getContext('2d');
  const img = lg.createImageData(MASK, MASK);
  for (let k = 0; k < MASK * MASK; k++) {
    const relief = paint.relief ? paint.relief[k] : 0;
    const rock = paint.rock ? paint.rock[k] : 0;
    const o = 4 * k;
    if (relief > 0) img.data.set([150, 90, 40, relief * 0.5], o);
    else if (rock > 0) img.data.set([60, 60, 70, 110], o);
  }
  lg.putImageData(img, 0, 0);
  g.imageSmoothingEnabled = true;
  g.drawImage(layer, 0, 0, canvas.width, canvas.height);
  g.lineWidth = 2;
  g.font = '11px sans-serif';
  for (const p of paint.pins) {
    const [x, y] = [p.x_m / WORLD_M * PREVIEW_PX, (1 - p.y_m / WORLD_M) * PREVIEW_PX];
    g.strokeStyle = '#e03c3c';
    g.beginPath();
    g.arc(x, y, 6, 0, 2 * Math.PI);
    g.stroke();
    g.fillStyle = '#e03c3c';
    g.fillText(p.tier, x + 8, y + 4);
  }
  canvas.dataset.strokes = String(paint.strokes);
}

function canvasPoint(e) {
  const r = $('#paint-canvas').getBoundingClientRect();
  return [(e.clientX - r.left) * PREVIEW_PX / r.width, (e.clientY - r.top) * PREVIEW_PX / r.height];
}

function paintDown(e) {
  const tool = $('#paint-tool').value;
  if (tool === 'none' || e.button !== 0) return;
  e.preventDefault();
  paint.undo.push(snapshot());
  const [x, y] = canvasPoint(e);
  if (tool === 'pin') {
    const tier = $('#paint-tier').value;
    if (tier === 'capitol') paint.pins = paint.pins.filter((p) => p.tier !== 'capitol');
    paint.pins.push({ x_m: x / PREVIEW_PX * WORLD_M, y_m: (1 - y / PREVIEW_PX) * WORLD_M, tier });
    paint.strokes += 1;
    drawPaint();
    requestPreview(0, true);
    return;
  }
  paint.down = true;
  paint.last = null;
  $('#paint-canvas').setPointerCapture(e.pointerId);
  strokeTo(tool, x, y);
}

function paintMove(e) {
  if (!paint.down) return;
  const [x, y] = canvasPoint(e);
  strokeTo($('#paint-tool').value, x, y);
}

function paintUp() {
  if (!paint.down) return;
  paint.down = false;
  paint.strokes += 1;
  drawPaint();
  requestPreview(0, true);
}

function undoPaint() {
  const last = paint.undo.pop();
  if (!last) return;
  Object.assign(paint, last);
  paint.strokes += 1;
  drawPaint();
  requestPreview(0, true);
}

function clearPaint() {
  paint.undo.push(snapshot());
  Object.assign(paint, { island: null, relief: null, rock: null, pins: [] });
  paint.strokes += 1;
  drawPaint();
  requestPreview(0, true);
}

/** CRC-32 of bytes (PNG chunks). */
function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** An 8-bit grayscale PNG of `data` (w × h), as a data URL: zlib stored blocks, no compression. */
function grayPng(w, h, data) {
  const raw = new Uint8Array((w + 1) * h);
  for (let y = 0; y < h; y++) raw.set(data.subarray(y * w, (y + 1) * w), y * (w + 1) + 1);
  const blocks = [];
  for (let at = 0; at < raw.length || blocks.length === 0; at += 65535) {
    const part = raw.subarray(at, Math.min(raw.length, at + 65535));
    const last = at + 65535 >= raw.length ? 1 : 0;
    blocks.push(Uint8Array.of(last, part.length & 255, part.length >> 8, ~part.length & 255, (~part.length >> 8) & 255), part);
  }
  let a = 1, b = 0;
  for (const x of raw) { a = (a + x) % 65521; b = (b + a) % 65521; }
  const adler = Uint8Array.of(b >> 8, b & 255, a >> 8, a & 255);
  const zlib = concat([Uint8Array.of(0x78, 0x01), ...blocks, adler]);
  const u32 = (v) => Uint8Array.of(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  const chunk = (type, body) => {
    const t = new TextEncoder().encode(type);
    return concat([u32(body.length), t, body, u32(crc32(concat([t, body])))]);
  };
  const ihdr = concat([u32(w), u32(h), Uint8Array.of(8, 0, 0, 0, 0)]);
  const png = concat([Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10), chunk('IHDR', ihdr),
    chunk('IDAT', zlib), chunk('IEND', new Uint8Array(0))]);
  let text = '';
  for (const x of png) text += String.fromCharCode(x);
  return 'data:image/png;base64,' + btoa(text);
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** What the preview request carries of the painting (undefined when nothing is painted). */
function paintedShape() {
  if (!painted()) return undefined;
  const shape = {};
  if (paint.island) shape.IslandMask = grayPng(MASK, MASK, paint.island);
  if (paint.relief) shape.ReliefMask = grayPng(MASK, MASK, paint.relief);
  if (paint.rock) shape.HardRockMask = grayPng(MASK, MASK, paint.rock);
  if (paint.pins.length) {
    shape.TownPins = {
      type: 'FeatureCollection',
      features: paint.pins.map((p) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [p.x_m, p.y_m] },
        properties: { tier: p.tier },
      })),
    };
  }
  return shape;
}

/** Saves the painting with the dials, the seed and MapSize in a new folder beside the worlds. */
async function savePainting() {
  const seed = seedValue();
  if (seed.error) {
    $('#seed-error').textContent = seed.error;
    return;
  }
  const msg = $('#paint-message');
  const shape = paintedShape();
  if (!shape) {
    msg.textContent = 'nothing is painted';
    return;
  }
  try {
    const r = await api('/api/shape/save', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seed: seed.value, size: Number($('#gen-size').value), config: dialConfig(), shape }),
    });
    const saved = await r.json();
    msg.textContent = `saved: ${saved.config} (islagen --config ${saved.config})`;
    msg.dataset.folder = saved.folder;
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) showDialErrors(e.body);
    else showError('save', e);
  }
}

function seedValue() {
  const s = $('#seed').value.trim();
  if (!/^-?\d+$/.test(s)) return { error: 'an integer, please' };
  const v = Number(s);
  const key = worldKey('WorldSeed');
  if (!key) return { error: 'the dials are not loaded' };
  if (v < key.min || v > key.max) return { error: `between ${key.min} and ${key.max}` };
  return { value: v };
}

/** The config the dials show: every dial's value (MapSize and WorldSeed apart). */
function dialConfig() {
  const c = {};
  for (const [k, v] of Object.entries(tune.values)) c[k] = v;
  return c;
}

/** Asks for a preview `delay` ms from now; a newer change cancels an older request. A `draft`
 * (while painting) is the island without its valleys and rivers, back in a fraction of the
 * time; the full preview follows it. */
function requestPreview(delay = 250, draft = false) {
  clearTimeout(tune.timer);
  tune.timer = setTimeout(() => runPreview(draft), delay);
}

async function runPreview(draft = false) {
  const seed = seedValue();
  $('#seed-error').textContent = seed.error || '';
  if (seed.error) return;
  if (tune.abort) tune.abort.abort();
  const abort = new AbortController();
  tune.abort = abort;
  const seq = ++tune.seq;
  $('#preview-state').textContent = 'rendering…';
  const body = JSON.stringify({
    seed: seed.value, config: dialConfig(), layer: $('#preview-layer').value, shape: paintedShape(), draft,
  });
  const started = performance.now();
  try {
    const r = await api('/api/preview', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: abort.signal,
    });
    const blob = await r.blob();
    if (seq !== tune.seq) return;
    const stats = r.headers.get('X-Islagen-Stats');
    showPreview(blob, seq, stats, performance.now() - started, draft);
    showPreview3d(seq, stats);
    if (draft) requestPreview(0);
  } catch (e) {
    if (e.name === 'AbortError' || seq !== tune.seq) return;
    if (e instanceof ApiError && e.status === 422) {
      showDialErrors(e.body);
      $('#preview-state').textContent = 'fix the marked dials';
    } else {
      $('#preview-state').textContent = 'the preview failed';
      showError('preview', e);
    }
  }
}

function showPreview(blob, seq, stats, ms, draft = false) {
  for (const e of document.querySelectorAll('#dials .field-error')) e.textContent = '';
  const url = URL.createObjectURL(blob);
  const img = $('#preview');
  img.src = url;
  img.dataset.seq = String(seq);
  img.dataset.draft = draft ? '1' : '0';
  if (tune.objectUrl) URL.revokeObjectURL(tune.objectUrl);
  tune.objectUrl = url;
  state.previews += 1;
  if (draft) state.drafts += 1;
  $('#preview-state').textContent = draft
    ? `draft in ${Math.round(ms)} ms (valleys and rivers follow)`
    : `shown in ${Math.round(ms)} ms`;
  let rows = [];
  if (stats) {
    try {
      rows = Object.entries(JSON.parse(stats)).map(([k, v]) =>
        el('tr', {}, el('th', { text: k.replace(/_/g, ' ') }), el('td', { text: fmt.value(v) })));
    } catch (_) {
      rows = [el('tr', {}, el('td', { text: stats }))];
    }
  }
  $('#preview-stats').replaceChildren(el('table', { class: 'params' }, el('tbody', {}, rows)));
}

/** The preview in 3D (when #preview-3d is on): the heights of the preview just shown, the
 * picture draped on them. */
const preview3d = { renderer: null };

async function showPreview3d(seq, stats) {
  const canvas = $('#preview3d-canvas');
  canvas.hidden = !$('#preview-3d').checked;
  if (canvas.hidden || !stats) return;
  let id;
  try {
    id = JSON.parse(stats).surface;
  } catch (_) {
    return;
  }
  try {
    const r = await api(`/api/preview/surface?id=${id}`);
    const info = JSON.parse(r.headers.get('x-islagen-surface'));
    const metres = new Float32Array(await r.arrayBuffer());
    const img = $('#preview');
    await img.decode();
    const image = await createImageBitmap(img);
    if (seq !== tune.seq) return;
    if (!preview3d.renderer) preview3d.renderer = Terrain3D.create(canvas);
    preview3d.renderer.show({ nx: info.nx, ny: info.ny, stepM: info.step_m, metres, image });
    requestAnimationFrame(() => requestAnimationFrame(() => { canvas.dataset.shown = String(seq); }));
  } catch (e) {
    // A newer preview replaced this one's surface: the newer one draws.
    if (!(e instanceof ApiError && e.status === 404)) showError('3D preview', e);
  }
}

function showDialErrors(body) {
  const list = body && Array.isArray(body.errors) ? body.errors : [{ key: null, message: body && body.error }];
  const general = [];
  for (const e of list) {
    const box = e.key ? document.getElementById(`dial-${e.key}-error`) : null;
    if (box) box.textContent = e.message;
    else if (e.key === 'WorldSeed') $('#seed-error').textContent = e.message;
    else general.push(e.key ? `${e.key}: ${e.message}` : e.message);
  }
  if (general.length) showError('config', general.join('; '));
}

function randomSeed() {
  const a = new Int32Array(1);
  do crypto.getRandomValues(a); while (a[0] === 0);
  $('#seed').value = String(a[0]);
  requestPreview(0);
}

function saveConfig() {
  const seed = seedValue();
  if (seed.error) {
    $('#seed-error').textContent = seed.error;
    return;
  }
  const config = { ...dialConfig(), MapSize: Number($('#gen-size').value), WorldSeed: seed.value };
  const blob = new Blob([JSON.stringify(config, null, 2) + '\n'], { type: 'application/json' });
  const a = el('a', { href: URL.createObjectURL(blob), download: 'ServerConfig.json' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function generate() {
  const seed = seedValue();
  if (seed.error) {
    $('#seed-error').textContent = seed.error;
    return;
  }
  const size = Number($('#gen-size').value);
  $('#job-message').textContent = '';
  try {
    const r = await api('/api/generate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seed: seed.value, size, config: dialConfig(), shape: paintedShape() }),
    });
    tune.running = (await r.json()).job;
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) $('#job-message').textContent = e.message;
    else if (e instanceof ApiError && e.status === 422) showDialErrors(e.body);
    else showError('generate', e);
    pollJob();
    return;
  }
  pollJob();
}

async function cancelJob() {
  try {
    await api('/api/job/cancel', { method: 'POST' });
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) showError('cancel', e);
  }
  pollJob();
}

/** Follows /api/job every half second while a generation runs. */
async function pollJob() {
  clearTimeout(tune.poll);
  let job;
  try {
    job = await getJson('/api/job');
  } catch (e) {
    showError('job', e);
    return;
  }
  const running = job.state === 'running';
  $('#job-progress').hidden = !running;
  $('#job-cancel').hidden = !running;
  $('#generate').disabled = running;
  if (running) {
    $('#job-progress').value = job.fraction || 0;
    $('#job-stage').textContent = `seed ${job.seed} at ${job.size}: ${job.stage || 'starting'} (${Math.round((job.fraction || 0) * 100)} %)`;
    tune.poll = setTimeout(pollJob, 500);
    tune.running = job.job;
    return;
  }
  $('#job-stage').textContent = '';
  if (tune.running !== undefined && tune.running === job.job) {
    // this page followed the job to its end
    const msg = $('#job-message');
    if (job.state === 'done') {
      msg.replaceChildren('Done: ', el('a', { href: `#world=${enc(job.world)}`, text: job.world }),
        ` (${(job.stages || []).reduce((t, s) => t + s.seconds, 0).toFixed(1)} s)`);
      loadWorlds();
    } else if (job.state === 'failed') {
      msg.textContent = `The generation failed: ${job.error}`;
    } else if (job.state === 'cancelled') {
      msg.textContent = 'Cancelled: nothing was written.';
    }
    tune.running = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Routing and start

function route() {
  const h = location.hash;
  const tuneView = h === '#tune';
  $('#tune-view').hidden = !tuneView;
  $('#explore-view').hidden = tuneView;
  $('#tab-tune').classList.toggle('active', tuneView);
  $('#tab-explore').classList.toggle('active', !tuneView);
  if (tuneView) {
    loadDials();
    return;
  }
  if (h.startsWith('#world=')) {
    let id;
    try {
      id = decodeURIComponent(h.slice('#world='.length));
    } catch (_) {
      showError('address', 'not a world id');
      return;
    }
    openWorld(id);
    if (state.map) state.map.invalidateSize();
  } else {
    closeWorld();
  }
}

function start() {
  $('#error-close').addEventListener('click', clearErrors);
  $('#back').addEventListener('click', () => { location.hash = '#explore'; });
  $('#seed').addEventListener('input', () => requestPreview());
  $('#random-seed').addEventListener('click', randomSeed);
  $('#preview-layer').addEventListener('change', () => requestPreview(0));
  $('#save-config').addEventListener('click', saveConfig);
  $('#generate').addEventListener('click', generate);
  $('#job-cancel').addEventListener('click', cancelJob);
  $('#dials-form').addEventListener('submit', (e) => e.preventDefault());
  const canvas = $('#paint-canvas');
  canvas.addEventListener('pointerdown', paintDown);
  canvas.addEventListener('pointermove', paintMove);
  canvas.addEventListener('pointerup', paintUp);
  canvas.addEventListener('pointercancel', paintUp);
  $('#paint-tool').addEventListener('change', (e) => {
    canvas.classList.toggle('painting', e.target.value !== 'none');
  });
  $('#paint-undo').addEventListener('click', undoPaint);
  $('#paint-clear').addEventListener('click', clearPaint);
  $('#paint-save').addEventListener('click', savePainting);
  $('#preview-3d').addEventListener('change', () => requestPreview(0));
  $('#view-3d').addEventListener('click', open3d);
  $('#view3d-close').addEventListener('click', close3d);
  $('#view3d-exag').addEventListener('input', (e) => {
    if (view3d.renderer) view3d.renderer.setExaggeration(Number(e.target.value));
  });
  window.addEventListener('hashchange', route);
  loadWorlds();
  pollJob();
  route();
}

start();
