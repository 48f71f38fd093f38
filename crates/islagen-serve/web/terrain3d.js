// islagen serve: the 3D view of a region (plain WebGL2, no library). The ground is a grid mesh
// of the region's surface (/api/surface: heights in metres above sea, water at its level), lit
// by one sun and coloured by a picture of the same region (/api/view.png: the shown base layer
// and overlays, so hillshade or biomes, water, roads and towns lie on the ground).
//
// Mouse: drag to orbit, shift-drag or right-drag to pan, the wheel to zoom. The vertical
// exaggeration multiplies every height.
//
// Terrain3D.create(canvas) -> view, with view.show({ nx, ny, stepM, metres, image }) (metres a
// Float32Array of nx × ny, rows north to south; image an ImageBitmap or <img>), view.setExaggeration(x),
// view.frames (frames drawn), view.dispose(). Throws if the browser has no WebGL2.
'use strict';

const Terrain3D = (() => {
  const VS = `#version 300 es
    precision highp float;
    uniform highp sampler2D heights;
    uniform mat4 viewProj;
    uniform ivec2 size;
    uniform float step;
    uniform float exaggeration;
    out vec2 uv;
    out vec3 normal;
    float h(ivec2 p) {
      return texelFetch(heights, clamp(p, ivec2(0), size - 1), 0).r * exaggeration;
    }
    void main() {
      ivec2 p = ivec2(gl_VertexID % size.x, gl_VertexID / size.x);
      float dx = (h(p + ivec2(1, 0)) - h(p - ivec2(1, 0))) / (2.0 * step);
      float dz = (h(p + ivec2(0, 1)) - h(p - ivec2(0, 1))) / (2.0 * step);
      normal = normalize(vec3(-dx, 1.0, -dz));
      vec2 centre = vec2(size - 1) * 0.5;
      vec3 world = vec3((float(p.x) - centre.x) * step, h(p), (float(p.y) - centre.y) * step);
      uv = (vec2(p) + 0.5) / vec2(size);
      gl_Position = viewProj * vec4(world, 1.0);
    }`;
  const FS = `#version 300 es
    precision mediump float;
    uniform sampler2D colour;
    uniform vec3 sun;
    in vec2 uv;
    in vec3 normal;
    out vec4 fragment;
    void main() {
      vec3 c = texture(colour, uv).rgb;
      float light = 0.55 + 0.45 * max(dot(normalize(normal), sun), 0.0);
      fragment = vec4(c * light, 1.0);
    }`;

  function shader(gl, type, source) {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  }

  function program(gl) {
    const p = gl.createProgram();
    gl.attachShader(p, shader(gl, gl.VERTEX_SHADER, VS));
    gl.attachShader(p, shader(gl, gl.FRAGMENT_SHADER, FS));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
    return p;
  }

  // Column-major 4×4 matrices, as WebGL takes them.
  function perspective(fovY, aspect, near, far) {
    const f = 1 / Math.tan(fovY / 2);
    const nf = 1 / (near - far);
    return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0];
  }

  function lookAt(eye, target, up) {
    const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    const norm = (a) => { const l = Math.hypot(...a) || 1; return a.map((v) => v / l); };
    const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const z = norm(sub(eye, target));
    const x = norm(cross(up, z));
    const y = cross(z, x);
    return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
      -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
  }

  function multiply(a, b) {
    const out = new Array(16).fill(0);
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 4; r++) {
        for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
      }
    }
    return out;
  }

  /** Triangle indices of an nx × ny grid of vertices (vertex id = x + y nx). */
  function gridIndices(nx, ny) {
    const idx = new Uint32Array((nx - 1) * (ny - 1) * 6);
    let k = 0;
    for (let y = 0; y < ny - 1; y++) {
      for (let x = 0; x < nx - 1; x++) {
        const a = x + y * nx;
        const b = a + 1;
        const c = a + nx;
        const d = c + 1;
        idx[k++] = a; idx[k++] = c; idx[k++] = b;
        idx[k++] = b; idx[k++] = c; idx[k++] = d;
      }
    }
    return idx;
  }

  function create(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('this browser has no WebGL2');
    const prog = program(gl);
    const loc = (n) => gl.getUniformLocation(prog, n);
    const u = {
      heights: loc('heights'), colour: loc('colour'), viewProj: loc('viewProj'), size: loc('size'),
      step: loc('step'), exaggeration: loc('exaggeration'), sun: loc('sun'),
    };
    const vao = gl.createVertexArray();
    const indexBuffer = gl.createBuffer();
    const heightTex = gl.createTexture();
    const colourTex = gl.createTexture();
    const cam = { yaw: -0.6, pitch: 0.6, distance: 1, target: [0, 0, 0] };
    const view = { frames: 0, exaggeration: 1.5, grid: null };
    let frame = 0;

    function draw() {
      frame = 0;
      const g = view.grid;
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
      const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      gl.viewport(0, 0, w, h);
      gl.clearColor(0.72, 0.82, 0.92, 1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      if (!g) return;
      const eye = [
        cam.target[0] + cam.distance * Math.cos(cam.pitch) * Math.sin(cam.yaw),
        cam.target[1] + cam.distance * Math.sin(cam.pitch),
        cam.target[2] + cam.distance * Math.cos(cam.pitch) * Math.cos(cam.yaw),
      ];
      const span = g.extent;
      const proj = perspective(Math.PI / 4, w / h, span / 1000, span * 10);
      gl.useProgram(prog);
      gl.enable(gl.DEPTH_TEST);
      gl.uniformMatrix4fv(u.viewProj, false, multiply(proj, lookAt(eye, cam.target, [0, 1, 0])));
      gl.uniform2i(u.size, g.nx, g.ny);
      gl.uniform1f(u.step, g.stepM);
      gl.uniform1f(u.exaggeration, view.exaggeration);
      const sun = [-0.5, 0.75, -0.45];
      const l = Math.hypot(...sun);
      gl.uniform3f(u.sun, sun[0] / l, sun[1] / l, sun[2] / l);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, heightTex);
      gl.uniform1i(u.heights, 0);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, colourTex);
      gl.uniform1i(u.colour, 1);
      gl.bindVertexArray(vao);
      gl.drawElements(gl.TRIANGLES, g.count, gl.UNSIGNED_INT, 0);
      view.frames += 1;
    }

    function redraw() {
      if (!frame) frame = requestAnimationFrame(draw);
    }

    view.show = ({ nx, ny, stepM, metres, image }) => {
      gl.bindTexture(gl.TEXTURE_2D, heightTex);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, nx, ny, 0, gl.RED, gl.FLOAT, metres);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.bindTexture(gl.TEXTURE_2D, colourTex);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, image);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      gl.bindVertexArray(vao);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indexBuffer);
      const idx = gridIndices(nx, ny);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of metres) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      const extent = Math.max(nx, ny) * stepM;
      view.grid = { nx, ny, stepM, count: idx.length, extent };
      cam.target = [0, ((lo + hi) / 2) * view.exaggeration, 0];
      cam.distance = extent * 1.1;
      cam.yaw = -0.6;
      cam.pitch = 0.6;
      redraw();
    };

    view.setExaggeration = (x) => { view.exaggeration = x; redraw(); };

    // Orbit (drag), pan (shift- or right-drag), zoom (wheel).
    let drag = null;
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    canvas.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.shiftKey || e.button === 2 };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag || !view.grid) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      drag.x = e.clientX;
      drag.y = e.clientY;
      if (drag.pan) {
        const k = cam.distance / Math.max(1, canvas.clientHeight);
        // The ground follows the pointer: right is (cos, 0, -sin) of the yaw, ahead (-sin, 0, -cos).
        const c = Math.cos(cam.yaw);
        const s = Math.sin(cam.yaw);
        cam.target[0] -= (c * dx + s * dy) * k;
        cam.target[2] += (s * dx - c * dy) * k;
      } else {
        cam.yaw -= dx * 0.008;
        cam.pitch = Math.min(1.5, Math.max(0.05, cam.pitch + dy * 0.008));
      }
      redraw();
    });
    const end = () => { drag = null; };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (!view.grid) return;
      cam.distance = Math.min(view.grid.extent * 4, Math.max(view.grid.stepM * 4,
        cam.distance * Math.exp(e.deltaY * 0.001)));
      redraw();
    }, { passive: false });
    new ResizeObserver(redraw).observe(canvas);

    view.dispose = () => {
      gl.deleteTexture(heightTex);
      gl.deleteTexture(colourTex);
      gl.deleteBuffer(indexBuffer);
      gl.deleteVertexArray(vao);
      gl.deleteProgram(prog);
      view.grid = null;
    };
    return view;
  }

  return { create };
})();
