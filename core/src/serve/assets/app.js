// sessiondb viewer (issue 32). No framework, no HTML strings: every node is
// built with createElement and every piece of content goes in as text
// (textContent / text nodes), so nothing a session holds is ever parsed as
// HTML or run. Links from content are kept only for http(s) addresses.
'use strict';

const state = { info: null, listSeq: 0, searchSeq: 0 };

// ---------------------------------------------------------------- helpers

/** Element `tag` with attributes (a fixed, safe set) and children (strings become text). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'href') e.setAttribute('href', safeHref(v));
    else if (/^(id|title|type|value|placeholder|min|step|for|name|open|target|rel|colspan|data-[a-z-]+)$/.test(k)) e.setAttribute(k, v === true ? '' : String(v));
    else throw new Error('attribute not allowed: ' + k);
  }
  for (const c of children) add(e, c);
  return e;
}

function add(parent, c) {
  if (c === null || c === undefined || c === false) return;
  if (Array.isArray(c)) c.forEach((x) => add(parent, x));
  else if (c instanceof Node) parent.appendChild(c);
  else parent.appendChild(document.createTextNode(String(c)));
}

/** Our own routes (`#/...`) and http(s) addresses; anything else (javascript:, data:...) becomes a dead link. */
function safeHref(h) {
  const s = String(h);
  if (s.startsWith('#/')) return s;
  if (/^https?:\/\/[^\s]+$/i.test(s)) return s;
  return '#/';
}

const svgNS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of children) {
    if (c instanceof Node) e.appendChild(c);
    else if (c !== null && c !== undefined) e.appendChild(document.createTextNode(String(c)));
  }
  return e;
}

// In a VS Code webview (examples/vscode/src/viewer.ts) this page has no
// address of its own: the extension hands it these files and answers each API
// call by message, {type: 'api', id, endpoint, query} -> {type: 'api', id,
// status, body}, reading the viewer over loopback with its own sign-in; and it
// moves the page with {type: 'route', hash}. Elsewhere `acquireVsCodeApi` does
// not exist and calls are same-origin fetches.
const vscodeHost = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;
const pendingCalls = new Map();
let nextCall = 1;
if (vscodeHost) {
  window.addEventListener('message', (ev) => {
    const m = ev.data;
    if (!m || typeof m !== 'object') return;
    if (m.type === 'route' && typeof m.hash === 'string' && m.hash.startsWith('#/')) {
      location.hash = m.hash;
    } else if (m.type === 'api' && pendingCalls.has(m.id)) {
      const done = pendingCalls.get(m.id);
      pendingCalls.delete(m.id);
      done({ status: Number(m.status), text: String(m.body) });
    }
  });
}

function callHost(endpoint, query) {
  return new Promise((resolve) => {
    const id = nextCall++;
    pendingCalls.set(id, resolve);
    vscodeHost.postMessage({ type: 'api', id, endpoint, query });
  });
}

async function callHttp(endpoint, query) {
  const r = await fetch('api/' + endpoint + '?' + query, { credentials: 'same-origin', cache: 'no-store' });
  return { status: r.status, text: await r.text() };
}

async function api(endpoint, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const r = await (vscodeHost ? callHost : callHttp)(endpoint, q.toString());
  let body;
  try {
    body = JSON.parse(r.text);
  } catch (_) {
    body = { error: { message: 'HTTP ' + r.status } };
  }
  if (r.status < 200 || r.status > 299 || body.error) throw new Error((body.error && body.error.message) || 'HTTP ' + r.status);
  return body;
}

const num = (n) => Number(n || 0).toLocaleString('en-US');
function when(ms) {
  if (ms === null || ms === undefined) return '-';
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
function size(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
  return (n / 1048576).toFixed(1) + ' MB';
}
const sessionHref = (id, seq) => '#/s/' + encodeURIComponent(id) + (seq ? '/' + seq : '');

function setMain(...nodes) {
  const m = document.getElementById('main');
  m.replaceChildren();
  add(m, nodes);
  return m;
}

function errorBox(e) {
  return el('p', { class: 'error', text: String(e.message || e) });
}

/** Parse the route's own query (`#/?scope=all`). */
function hashParams() {
  const h = location.hash.replace(/^#/, '');
  const i = h.indexOf('?');
  return new URLSearchParams(i >= 0 ? h.slice(i + 1) : '');
}

// ---------------------------------------------------------------- markdown (safe)

/** Inline Markdown: `code`, **bold**, *italic*, [text](http...), bare http(s) links; everything else text. */
function inline(text) {
  const out = [];
  const re = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*)|(\[[^\]\n]+\]\([^)\s]+\))|(https?:\/\/[^\s<>()"']+)/g;
  let at = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    if (m.index > at) out.push(text.slice(at, m.index));
    const t = m[0];
    if (m[1]) out.push(el('code', { text: t.slice(1, -1) }));
    else if (m[2]) out.push(el('strong', { text: t.slice(2, -2) }));
    else if (m[3]) out.push(el('em', { text: t.slice(1, -1) }));
    else if (m[4]) {
      const mm = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(t);
      if (/^https?:\/\//i.test(mm[2])) out.push(el('a', { href: mm[2], target: '_blank', rel: 'noopener noreferrer', text: mm[1] }));
      else out.push(t); // javascript:, data:, relative: shown as written
    } else out.push(el('a', { href: t, target: '_blank', rel: 'noopener noreferrer', text: t }));
    at = m.index + t.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** Block Markdown: fenced code, headings, lists, quotes, paragraphs (lines kept). */
function markdown(src) {
  const root = el('div', { class: 'md' });
  const lines = String(src).split('\n');
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) {
      const p = el('p');
      para.forEach((l, i) => {
        if (i) p.appendChild(el('br'));
        add(p, inline(l));
      });
      root.appendChild(p);
      para = [];
    }
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      flush();
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      root.appendChild(el('pre', { class: 'code', 'data-lang': fence[2] || null }, el('code', { text: body.join('\n') })));
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      root.appendChild(el('h' + Math.min(6, h[1].length + 2), {}, inline(h[2])));
      continue;
    }
    const li = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (li) {
      const ordered = /\d/.test(li[1]);
      if (para.length) flush();
      if (!list || list.ordered !== ordered) {
        list = { ordered, node: el(ordered ? 'ol' : 'ul') };
        root.appendChild(list.node);
      }
      list.node.appendChild(el('li', {}, inline(li[2])));
      continue;
    }
    const q = /^>\s?(.*)$/.exec(line);
    if (q) {
      flush();
      root.appendChild(el('blockquote', {}, inline(q[1])));
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    list = null;
    para.push(line);
  }
  flush();
  return root;
}

// ---------------------------------------------------------------- turns

function blockText(v) {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => (x && typeof x.text === 'string' ? x.text : JSON.stringify(x))).join('\n');
  return v === undefined ? '' : JSON.stringify(v, null, 2);
}

function fold(cls, label, body) {
  return el('details', { class: 'fold ' + cls }, el('summary', { text: label }), el('pre', { text: body }));
}

/** A turn's content as nodes: text as Markdown, tool calls, results and thinking folded. */
function renderContent(e, tools) {
  let blocks = null;
  if (e.format === 'blocks') {
    try {
      const v = JSON.parse(e.content);
      if (Array.isArray(v)) blocks = v;
    } catch (_) {
      blocks = null;
    }
  }
  if (!blocks) {
    if (e.role === 'tool') return [fold('tool-result', '← tool result · ' + size(e.content.length), e.content)];
    return [markdown(e.content)];
  }
  return blocks.map((b) => {
    const type = b && typeof b.type === 'string' ? b.type : '?';
    if (type === 'text') return markdown(typeof b.text === 'string' ? b.text : '');
    if (type === 'thinking' || type === 'redacted_thinking') {
      const t = blockText(b.thinking !== undefined ? b.thinking : b.content !== undefined ? b.content : b.data);
      return fold('thinking', 'Thinking · ' + size(t.length), t);
    }
    if (type === 'tool_use') {
      const name = typeof b.name === 'string' ? b.name : 'tool';
      if (typeof b.id === 'string') tools[b.id] = name;
      const input = JSON.stringify(b.input === undefined ? {} : b.input, null, 2);
      return fold('tool-call', '→ ' + name + ' · ' + size(input.length), input);
    }
    if (type === 'tool_result') {
      const name = tools[b.tool_use_id] || 'tool';
      const t = blockText(b.content);
      return fold('tool-result', '← ' + name + (b.is_error === true ? ' error' : '') + ' · ' + size(t.length), t);
    }
    const raw = JSON.stringify(b, null, 2);
    return fold('other', '[' + type + '] · ' + size(raw.length), raw);
  });
}

function turnNode(sid, e, tools) {
  const badges = [];
  if (e.state !== 'verbatim') badges.push(el('span', { class: 'badge state-' + e.state, text: e.state }));
  if (e.pinned) badges.push(el('span', { class: 'badge pinned', text: 'pinned' }));
  return el(
    'article',
    { class: 'turn role-' + e.role + ' state-' + e.state, id: 'seq-' + e.seq, 'data-seq': e.seq, 'data-role': e.role },
    el('header', {}, el('a', { class: 'seq', href: sessionHref(sid, e.seq), text: '#' + e.seq }), ' ', el('span', { class: 'role', text: e.role }), ' ', el('span', { class: 'time', text: when(e.created_at_ms) }), ' ', badges),
    el('div', { class: 'content' }, renderContent(e, tools))
  );
}

function runNode(r) {
  return el(
    'div',
    { class: 'compaction', 'data-first': r.first_seq, 'data-last': r.last_seq },
    el('span', { class: 'label', text: 'Compaction boundary: #' + r.first_seq + '–#' + r.last_seq + ' are sent as this summary (' + num(r.tokens_before) + ' → ' + num(r.tokens_after) + ' tokens); the active context continues after #' + r.last_seq }),
    el('blockquote', { text: r.summary })
  );
}

// ---------------------------------------------------------------- session list

function scopeSelect(value, onchange) {
  const ws = state.info && state.info.workspace;
  const s = el(
    'select',
    { id: 'scope', title: 'Workspace filter' },
    ['all', 'current', 'other', 'unbound'].map((v) => {
      const o = el('option', { value: v, text: v === 'current' && ws ? 'current (' + ws + ')' : v });
      if ((v === 'current' || v === 'other') && !ws) o.disabled = true;
      return o;
    })
  );
  s.value = value;
  s.addEventListener('change', () => onchange(s.value));
  return s;
}

function sessionRow(r) {
  return el(
    'tr',
    { class: 'session-row', 'data-id': r.id },
    el('td', { class: 'title' }, el('a', { href: sessionHref(r.id), text: r.title })),
    el('td', { class: 'agent', text: r.agent }),
    el('td', { class: 'workspace', text: r.workspace || '(unbound)' }),
    el('td', { class: 'model', text: r.model || '-' }),
    el('td', { class: 'entries num', text: num(r.entries) }),
    el('td', { class: 'activity', text: when(r.updated_at_ms) })
  );
}

function highlighted(snippet, ranges) {
  const out = [];
  let at = 0;
  for (const h of ranges || []) {
    if (h.start < at || h.end > snippet.length) continue;
    out.push(snippet.slice(at, h.start), el('mark', { text: snippet.slice(h.start, h.end) }));
    at = h.end;
  }
  out.push(snippet.slice(at));
  return out;
}

async function listView() {
  const p = hashParams();
  const scope = p.get('scope') || 'all';
  const sort = p.get('sort') || 'activity';
  const go = (k, v) => {
    const q = hashParams();
    q.set(k, v);
    location.hash = '#/?' + q.toString();
  };
  const search = el('input', { id: 'search', type: 'search', placeholder: 'Search every session (words, "phrases", prefix*, -not, role:user…)', value: p.get('q') || '' });
  const sortSel = el('select', { id: 'sort', title: 'Sort' }, [['activity', 'last activity'], ['created', 'created'], ['entries', 'entries'], ['title', 'title']].map(([v, t]) => el('option', { value: v, text: 'sort: ' + t })));
  sortSel.value = sort;
  sortSel.addEventListener('change', () => go('sort', sortSel.value));
  const searchError = el('p', { id: 'search-error', class: 'error' });
  const results = el('div', { id: 'results' });
  const tbody = el('tbody');
  const table = el('table', { id: 'sessions' }, el('thead', {}, el('tr', {}, ['Title', 'Agent', 'Workspace', 'Model', 'Entries', 'Last activity'].map((t) => el('th', { text: t })))), tbody);
  const more = el('button', { id: 'more', type: 'button', text: 'Load more' });
  const count = el('p', { id: 'count', class: 'muted' });
  setMain(el('div', { class: 'controls' }, search, scopeSelect(scope, (v) => go('scope', v)), sortSel), searchError, results, count, table, more);

  const seq = ++state.listSeq;
  let offset = 0;
  let rows = [];
  async function page() {
    more.hidden = true;
    const r = await api('sessions', { scope, sort: sort === 'title' ? 'activity' : sort, offset, limit: 200 });
    if (seq !== state.listSeq) return;
    rows = rows.concat(r.rows);
    if (sort === 'title') rows.sort((a, b) => a.title.localeCompare(b.title, 'en'));
    tbody.replaceChildren(...rows.map(sessionRow));
    count.textContent = r.total === 0 ? 'No sessions here.' : 'Showing ' + rows.length + ' of ' + r.total + ' sessions';
    offset = r.next_offset;
    more.hidden = offset === null || offset === undefined;
  }
  more.addEventListener('click', () => page().catch((e) => count.replaceChildren(errorBox(e))));

  let timer = null;
  async function runSearch() {
    const q = search.value.trim();
    const mine = ++state.searchSeq;
    if (!q) {
      results.replaceChildren();
      searchError.textContent = '';
      table.hidden = false;
      count.hidden = false;
      return;
    }
    try {
      const r = await api('search', { q, scope, limit: 50 });
      if (mine !== state.searchSeq) return; // a later keystroke's answer wins
      searchError.textContent = '';
      table.hidden = true;
      count.hidden = true;
      more.hidden = true;
      results.replaceChildren(
        el('p', { id: 'hit-count', class: 'muted', text: r.total + (r.total === 1 ? ' session matches' : ' sessions match') }),
        ...r.hits.map((h) =>
          el(
            'div',
            { class: 'hit', 'data-id': h.session.id, 'data-seq': h.seq },
            el('a', { class: 'hit-title', href: sessionHref(h.session.id, h.seq || null), text: h.session.title }),
            el('span', { class: 'muted', text: ' · ' + (h.seq ? '#' + h.seq + ' ' + (h.role || '') : 'title') + ' · ' + when(h.time_ms) }),
            el('div', { class: 'snippet' }, highlighted(h.snippet, h.highlights))
          )
        )
      );
    } catch (e) {
      if (mine === state.searchSeq) searchError.textContent = String(e.message || e);
    }
  }
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(runSearch, 150);
  });
  search.focus();
  await page();
  if (search.value) await runSearch();
}

// ---------------------------------------------------------------- session page

async function sessionView(id, seq) {
  const title = el('h1', { id: 'session-title', text: '…' });
  const meta = el('p', { id: 'session-meta', class: 'muted' });
  const tokens = el('p', { id: 'session-tokens', class: 'muted' });
  const windowInput = el('input', { id: 'window', type: 'number', min: '1', step: '1000', value: String(hashParams().get('window') || (state.info ? state.info.window : 128000)) });
  const meterLabel = el('span', { id: 'meter-label', class: 'meter-label', text: 'Ctx …' });
  const meterFill = el('span', { class: 'meter-fill' });
  const meterDetail = el('span', { id: 'meter-detail', class: 'muted' });
  const meter = el('div', { id: 'meter', class: 'meter' }, meterLabel, el('span', { class: 'meter-bar' }, meterFill), meterDetail, el('label', { for: 'window', text: ' window ' }), windowInput, el('span', { class: 'muted', text: ' tokens' }));
  const earlier = el('button', { id: 'load-earlier', type: 'button', text: 'Load earlier entries' });
  const later = el('button', { id: 'load-more', type: 'button', text: 'Load more entries' });
  const turns = el('div', { id: 'turns' });
  const status = el('p', { id: 'turns-status', class: 'muted' });
  setMain(title, meta, tokens, meter, earlier, turns, status, later);
  earlier.hidden = true;
  later.hidden = true;

  const info = await api('session', { id });
  const s = info.session;
  title.textContent = s.title;
  document.title = s.title + ' · sessiondb';
  meta.replaceChildren(s.agent + ' · ' + (s.model || 'no model') + ' · ' + (s.workspace || '(unbound)') + ' · ' + num(s.entries) + ' entries · last activity ' + when(s.updated_at_ms));
  tokens.textContent = 'tokens: input ' + num(info.tokens.input) + ' · output ' + num(info.tokens.output) + ' · cached ' + num(info.tokens.cached);

  async function loadMeter() {
    try {
      const c = await api('context', { id, window: windowInput.value });
      const m = c.meter;
      meterLabel.textContent = m.label;
      meter.className = 'meter band-' + m.band;
      meter.setAttribute('data-band', m.band);
      meter.setAttribute('data-percent', m.percent);
      meterFill.style.width = Math.min(100, m.percent) + '%';
      meterDetail.textContent = ' ' + num(m.active_tokens) + ' of ' + num(m.capacity) + ' tokens (' + m.band + (m.overflow ? ', overflow' : '') + ')' + (c.compacted_runs ? ' · ' + c.compacted_runs + ' compacted run(s)' : '') + (c.excluded ? ' · ' + c.excluded + ' excluded' : '');
    } catch (e) {
      meterLabel.textContent = 'Ctx ?';
      meterDetail.textContent = ' ' + String(e.message || e);
    }
  }
  windowInput.addEventListener('change', loadMeter);

  const tools = {};
  const shownRuns = new Set();
  let nextFrom = null;
  let prevBefore = null;
  function place(page, where) {
    const frag = document.createDocumentFragment();
    const runs = page.runs || [];
    for (const e of page.entries) {
      frag.appendChild(turnNode(id, e, tools));
      for (const r of runs) {
        if (r.last_seq === e.seq && !shownRuns.has(r.first_seq)) {
          shownRuns.add(r.first_seq);
          frag.appendChild(runNode(r));
        }
      }
    }
    if (where === 'top') turns.insertBefore(frag, turns.firstChild);
    else turns.appendChild(frag);
  }
  async function more() {
    if (nextFrom === null || more.busy) return;
    more.busy = true;
    try {
      const page = await api('entries', { id, from: nextFrom, limit: 100 });
      place(page, 'bottom');
      nextFrom = page.next_from;
      later.hidden = nextFrom === null;
    } finally {
      more.busy = false;
    }
  }
  async function before() {
    if (prevBefore === null) return;
    const page = await api('entries', { id, before: prevBefore, limit: 100 });
    place(page, 'top');
    prevBefore = page.prev_before;
    earlier.hidden = prevBefore === null;
  }
  later.addEventListener('click', () => more().catch((e) => status.replaceChildren(errorBox(e))));
  earlier.addEventListener('click', () => before().catch((e) => status.replaceChildren(errorBox(e))));

  const first = await api('entries', seq ? { id, from: Math.max(1, seq - 5), limit: 100 } : { id, from: 1, limit: 100 });
  place(first, 'bottom');
  nextFrom = first.next_from;
  prevBefore = first.prev_before;
  later.hidden = nextFrom === null;
  earlier.hidden = prevBefore === null;
  status.textContent = s.entries === 0 ? 'No entries.' : '';
  if (seq) {
    const target = document.getElementById('seq-' + seq);
    if (target) {
      target.classList.add('target');
      target.scrollIntoView({ block: 'center' });
    }
  }
  // Scrolling near the end reads the next page.
  if ('IntersectionObserver' in window) {
    new IntersectionObserver((es) => es.forEach((x) => x.isIntersecting && more().catch(() => {}))).observe(later);
  }
  await loadMeter();
}

// ---------------------------------------------------------------- usage charts

const KINDS = ['input', 'output', 'cached'];

/** Grouped bar chart: one group per category, one bar per kind; each bar a rect with data-* of its point. */
function barChart(id, cats, values) {
  const W = 760;
  const H = 240;
  const padL = 70;
  const padB = 46;
  const max = Math.max(1, ...cats.flatMap((c) => KINDS.map((k) => values[c][k])));
  const groupW = (W - padL - 10) / Math.max(1, cats.length);
  const barW = Math.max(2, Math.min(24, (groupW - 6) / KINDS.length));
  const root = svg('svg', { id, class: 'chart', viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img' });
  root.appendChild(svg('line', { x1: padL, y1: H - padB, x2: W - 5, y2: H - padB, class: 'axis' }));
  root.appendChild(svg('line', { x1: padL, y1: 8, x2: padL, y2: H - padB, class: 'axis' }));
  root.appendChild(svg('text', { x: padL - 6, y: 14, class: 'tick', 'text-anchor': 'end' }, num(max)));
  root.appendChild(svg('text', { x: padL - 6, y: H - padB, class: 'tick', 'text-anchor': 'end' }, '0'));
  cats.forEach((c, i) => {
    const x0 = padL + 4 + i * groupW;
    KINDS.forEach((k, j) => {
      const v = values[c][k];
      const h = Math.round(((H - padB - 10) * v) / max);
      const r = svg('rect', { x: (x0 + j * barW).toFixed(1), y: H - padB - h, width: (barW - 1).toFixed(1), height: h, class: 'bar bar-' + k, 'data-cat': c, 'data-kind': k, 'data-value': v });
      r.appendChild(svg('title', {}, c + ' · ' + k + ' ' + num(v)));
      root.appendChild(r);
    });
    const label = c.length > 16 ? '…' + c.slice(-15) : c;
    root.appendChild(svg('text', { x: (x0 + (barW * KINDS.length) / 2).toFixed(1), y: H - padB + 14, class: 'tick', 'text-anchor': 'middle' }, label || '(none)'));
  });
  return root;
}

async function usageView() {
  const p = hashParams();
  const scope = p.get('scope') || 'all';
  const group = p.get('group') || 'day';
  const go = (k, v) => {
    const q = hashParams();
    q.set(k, v);
    location.hash = '#/usage?' + q.toString();
  };
  const groupSel = el('select', { id: 'group', title: 'Group by' }, ['day', 'model', 'workspace'].map((v) => el('option', { value: v, text: 'per ' + v })));
  groupSel.value = group;
  groupSel.addEventListener('change', () => go('group', groupSel.value));
  const holder = el('div', { id: 'chart-holder' });
  const table = el('table', { id: 'usage-table' });
  setMain(el('h1', { text: 'Token usage' }), el('div', { class: 'controls' }, scopeSelect(scope, (v) => go('scope', v)), groupSel), el('p', { class: 'legend' }, KINDS.map((k) => el('span', { class: 'key key-' + k, text: k }))), holder, table, el('p', { class: 'muted', text: 'Days are UTC days of when the usage happened (an imported record: the time of its message).' }));
  const r = await api('usage', { scope });
  const values = {};
  for (const row of r.rows) {
    const c = row[group] || '';
    values[c] = values[c] || { input: 0, output: 0, cached: 0, calls: 0 };
    for (const k of KINDS.concat(['calls'])) values[c][k] += row[k];
  }
  const cats = Object.keys(values).sort();
  if (cats.length === 0) {
    holder.replaceChildren(el('p', { id: 'no-usage', class: 'muted', text: 'No token usage recorded.' }));
    return;
  }
  holder.replaceChildren(barChart('chart', cats, values));
  table.replaceChildren(
    el('thead', {}, el('tr', {}, [group, 'input', 'output', 'cached', 'calls'].map((t) => el('th', { text: t })))),
    el('tbody', {}, cats.map((c) => el('tr', { 'data-cat': c }, el('td', { text: c || '(none)' }), ['input', 'output', 'cached', 'calls'].map((k) => el('td', { class: 'num', text: num(values[c][k]) })))))
  );
}

// ---------------------------------------------------------------- router

async function route() {
  const h = location.hash.replace(/^#/, '') || '/';
  const path = h.split('?')[0];
  document.title = 'sessiondb';
  try {
    if (!state.info) state.info = await api('info');
    const m = /^\/s\/([^/]+)(?:\/(\d+))?$/.exec(path);
    if (m) return await sessionView(decodeURIComponent(m[1]), m[2] ? Number(m[2]) : null);
    if (path === '/usage') return await usageView();
    return await listView();
  } catch (e) {
    setMain(errorBox(e));
  }
}

window.addEventListener('hashchange', route);
document.addEventListener('DOMContentLoaded', () => {
  // A webview's first route (a session and entry) comes in the page it is given.
  const start = document.querySelector('meta[name="sessiondb-route"]');
  const hash = start ? start.getAttribute('content') : '';
  if (!location.hash && hash && hash.startsWith('#/')) history.replaceState(null, '', hash);
  route();
});
