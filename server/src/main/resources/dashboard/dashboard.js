// Retrysafe dashboard: calls the public API with the key the user entered and draws what it
// answers. Everything shown is put in the page with textContent / createElement, never parsed
// as markup: response snippets come from strangers' servers.
'use strict';

(function () {
  const KEY_STORAGE = 'retrysafe.dashboard.apiKey';
  const POLL_MS = 3000;
  /** While the live stream is connected, polling only backs it up. */
  const LIVE_POLL_MS = 30000;
  const LIVE_RETRY_MAX_MS = 30000;
  const OUTCOMES = ['success', 'http_error', 'timeout', 'connection_error', 'dns_error', 'blocked', 'protocol_error'];
  const SVG = 'http://www.w3.org/2000/svg';

  const state = {
    key: null,
    timer: null,
    socket: null, // the live event stream (GET /v1/events/stream), when open
    live: false, // subscribed: updates arrive as they happen
    liveRetryMs: 1000,
    liveRefresh: null, // a refresh asked for by live messages, not yet run
    lastPoll: 0,
    busy: false,
    refreshFailed: false, // the error shown came from a refresh: the next good one clears it
    expanded: new Set(), // event ids whose deliveries are shown
    rendered: new Map(), // section -> JSON of what it shows, to redraw only on change
  };

  // --- DOM helpers ----------------------------------------------------------------------------

  function byTestId(id) {
    return document.querySelector('[data-testid="' + id + '"]');
  }

  /** An element with attributes (testid, class, text, title, data-*, others) and children (nodes or text). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttributes(node, attrs);
    for (const child of children) {
      if (child === null || child === undefined || child === false) {
        continue;
      }
      node.appendChild(typeof child === 'string' || typeof child === 'number'
        ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    setAttributes(node, attrs);
    return node;
  }

  function setAttributes(node, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) {
        continue;
      }
      if (name === 'text') {
        node.textContent = String(value);
      } else if (name === 'testid') {
        node.setAttribute('data-testid', value);
      } else if (name === 'class') {
        node.setAttribute('class', value);
      } else {
        node.setAttribute(name, String(value));
      }
    }
  }

  function replaceChildren(node, ...children) {
    node.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  }

  function time(iso) {
    if (!iso) {
      return '\u2014';
    }
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
  }

  function timeCell(tag, iso, testid) {
    return el(tag, { testid: testid, title: iso || null, text: time(iso) });
  }

  function percent(rate) {
    return (Math.round(rate * 1000) / 10) + '%';
  }

  // --- API --------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, title, detail) {
      super(title + (detail ? ': ' + detail : ''));
      this.status = status;
      this.title = title;
      this.detail = detail;
    }
  }

  /** A random UUID (version 4); crypto.randomUUID needs a secure context, getRandomValues does not. */
  function uuid() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }

  async function api(method, path, body) {
    const headers = { 'Authorization': 'Bearer ' + state.key, 'Accept': 'application/json' };
    const init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
    if (method === 'POST') {
      // a fresh key per press: a press is a new request, and a retried one is made safe by the key
      headers['Idempotency-Key'] = uuid();
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body || {});
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, 'The server did not answer', String(e && e.message ? e.message : e));
    }
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch (e) {
      json = null;
    }
    if (!response.ok) {
      const title = json && typeof json.title === 'string' ? json.title : 'HTTP ' + response.status;
      let detail = json && typeof json.detail === 'string' ? json.detail : '';
      if (json && Array.isArray(json.errors)) {
        const fields = json.errors.map((e) => String(e.field) + ': ' + String(e.detail)).join('; ');
        detail = detail ? detail + ' (' + fields + ')' : fields;
      }
      throw new ApiError(response.status, title, detail);
    }
    return json;
  }

  // --- messages ---------------------------------------------------------------------------------

  function showError(error) {
    const text = error instanceof ApiError ? error.message : 'Unexpected error: ' + String(error);
    byTestId('error-text').textContent = text;
    byTestId('error').hidden = false;
  }

  function clearError() {
    byTestId('error').hidden = true;
    byTestId('error-text').textContent = '';
  }

  function notice(text) {
    const n = byTestId('notice');
    n.textContent = text;
    n.hidden = false;
  }

  function failed(error) {
    if (error instanceof ApiError && error.status === 401) {
      forgetKey();
      showError(new ApiError(401, 'The API key was not accepted', error.detail));
      return;
    }
    showError(error);
  }

  // --- key and polling --------------------------------------------------------------------------

  function open(key) {
    state.key = key;
    byTestId('login').hidden = true;
    byTestId('app').hidden = false;
    byTestId('forget-key').hidden = false;
    refresh();
    connectLive();
    if (state.timer === null) {
      state.timer = setInterval(() => {
        const every = state.live ? LIVE_POLL_MS : POLL_MS;
        if (!document.hidden && Date.now() - state.lastPoll >= every) {
          refresh();
        }
      }, POLL_MS);
    }
  }

  // --- live updates: the WebSocket of docs/live-events.md ----------------------------------------

  function setLive(live) {
    state.live = live;
    const badge = byTestId('live');
    badge.textContent = live ? 'live' : 'polling';
    badge.className = live ? 'live on' : 'live';
  }

  function connectLive() {
    if (state.key === null || state.socket !== null || typeof WebSocket === 'undefined') {
      return;
    }
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/events/stream';
    const socket = new WebSocket(url);
    state.socket = socket;
    // the key goes in the first message, never in the URL (which proxies and logs record)
    socket.onopen = () => socket.send(JSON.stringify({type: 'auth', api_key: state.key}));
    socket.onmessage = (message) => {
      let msg;
      try {
        msg = JSON.parse(message.data);
      } catch (e) {
        return;
      }
      if (msg.type === 'welcome') {
        socket.send(JSON.stringify({type: 'subscribe', event_types: ['*']}));
      } else if (msg.type === 'subscribed') {
        state.liveRetryMs = 1000;
        setLive(true);
      } else if (msg.type === 'event' || msg.type === 'delivery.attempted' || msg.type === 'job.updated') {
        liveRefresh();
      }
    };
    socket.onclose = () => {
      if (state.socket !== socket) {
        return;
      }
      state.socket = null;
      setLive(false);
      if (state.key !== null) {
        setTimeout(connectLive, state.liveRetryMs);
        state.liveRetryMs = Math.min(LIVE_RETRY_MAX_MS, state.liveRetryMs * 2);
      }
    };
  }

  function disconnectLive() {
    const socket = state.socket;
    state.socket = null;
    if (socket !== null) {
      socket.close(1000);
    }
    setLive(false);
  }

  /** Many messages in a burst make one refresh. */
  function liveRefresh() {
    if (state.liveRefresh === null) {
      state.liveRefresh = setTimeout(() => {
        state.liveRefresh = null;
        refreshNow();
      }, 200);
    }
  }

  function forgetKey() {
    sessionStorage.removeItem(KEY_STORAGE);
    state.key = null;
    disconnectLive();
    if (state.timer !== null) {
      clearInterval(state.timer);
      state.timer = null;
    }
    state.expanded.clear();
    state.rendered.clear();
    for (const id of ['endpoints', 'events', 'jobs', 'rate-limits', 'chart', 'chart-legend', 'chart-summary']) {
      replaceChildren(byTestId(id));
    }
    byTestId('app').hidden = true;
    byTestId('forget-key').hidden = true;
    byTestId('notice').hidden = true;
    byTestId('status').textContent = '';
    byTestId('login').hidden = false;
  }

  async function refresh() {
    if (state.busy || state.key === null) {
      return;
    }
    state.busy = true;
    state.lastPoll = Date.now();
    try {
      const [endpoints, events, stats, jobs, limits] = await Promise.all([
        api('GET', '/v1/webhook_endpoints?limit=100'),
        api('GET', '/v1/events?limit=20'),
        api('GET', '/v1/webhook_attempt_stats?hours=24'),
        api('GET', '/v1/jobs?limit=20'),
        api('GET', '/v1/rate_limit'),
      ]);
      const shown = new Set(events.data.map((e) => e.id));
      for (const id of Array.from(state.expanded)) {
        if (!shown.has(id)) {
          state.expanded.delete(id);
        }
      }
      const deliveries = {};
      await Promise.all(Array.from(state.expanded, async (id) => {
        deliveries[id] = await eventDeliveries(id);
      }));
      if (state.key === null) {
        return; // forgotten while loading
      }
      draw('chart', stats, renderChart);
      draw('endpoints', endpoints, renderEndpoints);
      draw('events', { events: events, deliveries: deliveries, expanded: Array.from(state.expanded).sort() }, renderEvents);
      draw('jobs', jobs, renderJobs);
      draw('rate-limits', limits, renderRateLimits);
      if (state.refreshFailed) {
        state.refreshFailed = false;
        clearError();
      }
      byTestId('status').textContent = 'Updated ' + new Date().toLocaleTimeString();
      byTestId('status').setAttribute('data-updated', new Date().toISOString());
    } catch (e) {
      state.refreshFailed = true;
      failed(e);
    } finally {
      state.busy = false;
    }
  }

  /** Redraws a section only when its data changed and nobody is typing in it. */
  function draw(section, data, render) {
    const json = JSON.stringify(data);
    const node = byTestId(section);
    if (state.rendered.get(section) === json) {
      return;
    }
    if (node.contains(document.activeElement) && document.activeElement.tagName === 'INPUT') {
      return; // the next poll redraws it
    }
    state.rendered.set(section, json);
    render(node, data);
  }

  async function eventDeliveries(eventId) {
    const page = await api('GET', '/v1/events/' + encodeURIComponent(eventId) + '/deliveries?limit=100');
    return Promise.all(page.data.map((d) => api('GET', '/v1/deliveries/' + encodeURIComponent(d.id))));
  }

  /** Runs an action of a button: disabled meanwhile, its error shown, then a refresh. */
  async function act(button, action) {
    button.disabled = true;
    try {
      clearError();
      state.refreshFailed = false;
      await action();
      state.rendered.clear();
      await refreshNow();
    } catch (e) {
      failed(e);
    } finally {
      button.disabled = false;
    }
  }

  async function refreshNow() {
    while (state.busy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await refresh();
  }

  // --- chart ------------------------------------------------------------------------------------

  function outcomeClass(outcome) {
    return 'o-' + (OUTCOMES.includes(outcome) ? outcome : 'other');
  }

  function renderChart(node, stats) {
    const buckets = stats.buckets;
    const width = 720;
    const height = 200;
    const left = 36;
    const right = 8;
    const top = 10;
    const bottom = 24;
    const totals = buckets.map((b) => Object.values(b.outcomes).reduce((s, n) => s + n, 0));
    const max = Math.max(1, ...totals);
    const slot = (width - left - right) / Math.max(1, buckets.length);
    const scale = (height - top - bottom) / max;
    const chart = svg('svg', {
      viewBox: '0 0 ' + width + ' ' + height, role: 'img', testid: 'chart-svg',
      'aria-label': 'Webhook attempts per hour by outcome, last ' + buckets.length + ' hours',
    });
    chart.appendChild(svg('line', { class: 'axis', x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }));
    chart.appendChild(svg('text', { x: left - 6, y: top + 4, 'text-anchor': 'end', text: max }));
    chart.appendChild(svg('text', { x: left - 6, y: height - bottom, 'text-anchor': 'end', text: 0 }));
    buckets.forEach((bucket, i) => {
      const x = left + i * slot + slot * 0.1;
      let y = height - bottom;
      const outcomes = Object.keys(bucket.outcomes).sort((a, b) => OUTCOMES.indexOf(a) - OUTCOMES.indexOf(b));
      for (const outcome of outcomes) {
        const n = bucket.outcomes[outcome];
        const h = n * scale;
        y -= h;
        const bar = svg('rect', {
          class: outcomeClass(outcome), x: x.toFixed(1), y: y.toFixed(1), width: (slot * 0.8).toFixed(1),
          height: Math.max(h, 0.5).toFixed(1), testid: 'chart-bar', 'data-outcome': outcome, 'data-count': n,
        });
        bar.appendChild(svg('title', { text: time(bucket.start) + ': ' + n + ' ' + outcome }));
        chart.appendChild(bar);
      }
      if (i % 6 === 0 || i === buckets.length - 1) {
        const label = new Date(bucket.start);
        chart.appendChild(svg('text', {
          x: (left + i * slot + slot / 2).toFixed(1), y: height - 8, 'text-anchor': 'middle',
          text: Number.isNaN(label.getTime()) ? '' : String(label.getHours()).padStart(2, '0') + ':00',
        }));
      }
    });
    replaceChildren(node, chart);

    const all = totals.reduce((s, n) => s + n, 0);
    const succeeded = buckets.reduce((s, b) => s + (b.outcomes.success || 0), 0);
    byTestId('chart-summary').textContent = all === 0 ? 'No attempts in this period.'
      : all + ' attempts, ' + succeeded + ' succeeded (' + percent(succeeded / all) + ').';
    const seen = new Set(OUTCOMES);
    buckets.forEach((b) => Object.keys(b.outcomes).forEach((o) => seen.add(o)));
    replaceChildren(byTestId('chart-legend'), ...Array.from(seen, (o) =>
      el('li', {}, el('span', { class: 'swatch ' + outcomeClass(o) }), o)));
  }

  // --- endpoints --------------------------------------------------------------------------------

  function renderEndpoints(node, page) {
    if (page.data.length === 0) {
      replaceChildren(node, el('p', { class: 'muted', text: 'No webhook endpoints yet (POST /v1/webhook_endpoints).' }));
      return;
    }
    replaceChildren(node, el('div', { class: 'cards' }, ...page.data.map(endpointCard)));
  }

  function endpointCard(e) {
    const h = e.health || {};
    const badge = !e.enabled
      ? el('span', { class: 'badge bad', testid: 'endpoint-state', text: 'disabled' + (e.disabled_reason ? ' (' + e.disabled_reason + ')' : '') })
      : e.status === 'paused'
        ? el('span', { class: 'badge warn', testid: 'endpoint-state', text: 'paused' })
        : el('span', { class: 'badge ok', testid: 'endpoint-state', text: 'enabled' });
    const rate = h.attempts > 0
      ? percent(h.success_rate) + ' success (' + h.succeeded + ' of ' + h.attempts + ' attempts in ' + h.window_hours + ' h)'
      : 'No attempts in ' + (h.window_hours || 24) + ' h';
    const card = el('div', { class: 'card', testid: 'endpoint', 'data-endpoint-id': e.id },
      el('h3', { class: 'mono', testid: 'endpoint-url', text: e.url }),
      el('div', { class: 'row' }, badge, orderedBadge(e), el('span', { class: 'muted mono', text: e.id })),
      e.description ? el('p', { testid: 'endpoint-description', text: e.description }) : null,
      headerNames(e),
      el('p', { testid: 'endpoint-health', text: rate }),
      el('p', { class: 'muted' }, 'Last attempt: ', timeCell('span', h.last_attempt_at, 'endpoint-last-attempt'),
        h.last_outcome ? ' (' : '', h.last_outcome ? el('span', { testid: 'endpoint-last-outcome', text: h.last_outcome }) : null,
        h.last_outcome ? ')' : ''),
      e.failing_since ? el('p', { class: 'muted' }, 'Failing since ', timeCell('span', e.failing_since)) : null);
    if (!e.enabled) {
      const enable = el('button', { type: 'button', testid: 'endpoint-enable', text: 'Enable' });
      enable.addEventListener('click', () => act(enable, async () => {
        await api('POST', '/v1/webhook_endpoints/' + encodeURIComponent(e.id) + '/enable');
        notice('Endpoint ' + e.id + ' enabled. Recover its failed deliveries to send them again.');
      }));
      card.appendChild(el('div', { class: 'row' }, enable));
    }
    card.appendChild(el('div', { class: 'row' }, pauseToggle(e)));
    card.appendChild(recoverForm(e));
    return card;
  }

  // Ordered: the events of one ordering key (a payment and its refunds) go one at a time, in commit order.
  function orderedBadge(e) {
    return e.ordered
      ? el('span', { class: 'badge neutral', testid: 'endpoint-ordered', 'data-ordered': 'true', text: 'ordered',
        title: 'The events of one payment reach it one at a time, in commit order' })
      : el('span', { class: 'badge neutral', testid: 'endpoint-ordered', 'data-ordered': 'false', text: 'unordered' });
  }

  // Custom headers: the API shows their names only, never a value, and so does the page.
  function headerNames(e) {
    const names = e.header_names || [];
    return el('p', { class: 'muted', testid: 'endpoint-headers' }, 'Custom headers: ',
      names.length === 0 ? 'none' : null,
      ...names.flatMap((name, i) => [i > 0 ? ', ' : null, el('code', { testid: 'endpoint-header-name', text: name })]));
  }

  // Pause holds every delivery of the endpoint (nothing attempted, nothing failed); resume sends
  // what waited, oldest first. The button shows the action, the badge the state.
  function pauseToggle(e) {
    const paused = e.status === 'paused';
    const button = el('button', { type: 'button', testid: 'endpoint-pause-toggle', text: paused ? 'Resume' : 'Pause' });
    button.addEventListener('click', () => act(button, async () => {
      if (paused) {
        await api('POST', '/v1/webhook_endpoints/' + encodeURIComponent(e.id) + '/resume');
        notice('Endpoint ' + e.id + ' resumed: what waited is being sent, oldest first.');
      } else {
        await api('POST', '/v1/webhook_endpoints/' + encodeURIComponent(e.id) + '/pause');
        notice('Endpoint ' + e.id + ' paused: its deliveries wait until you resume it.');
      }
    }));
    return button;
  }

  function recoverForm(e) {
    const id = 'recover-' + e.id;
    const since = el('input', { id: id, type: 'datetime-local', testid: 'recover-since', step: 1 });
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
    yesterday.setMinutes(yesterday.getMinutes() - yesterday.getTimezoneOffset());
    since.value = yesterday.toISOString().slice(0, 19);
    const button = el('button', { type: 'submit', class: 'secondary', testid: 'recover-submit', text: 'Recover failed' });
    const form = el('form', { class: 'recover', testid: 'recover-form' },
      el('label', { for: id, text: 'Send failed deliveries again, since' }), since, button);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const at = new Date(since.value);
      if (!since.value || Number.isNaN(at.getTime())) {
        showError(new ApiError(0, 'Recover', 'enter the time since when failed deliveries should be sent again'));
        return;
      }
      act(button, async () => {
        const answer = await api('POST', '/v1/webhook_endpoints/' + encodeURIComponent(e.id) + '/recover',
          { since: at.toISOString() });
        notice(answer.recovered + ' failed deliveries of ' + e.id + ' are being sent again.');
      });
    });
    return form;
  }

  // --- events, deliveries, attempts -------------------------------------------------------------

  function renderEvents(node, view) {
    const events = view.events.data;
    if (events.length === 0) {
      replaceChildren(node, el('p', { class: 'muted', text: 'No events yet.' }));
      return;
    }
    replaceChildren(node, ...events.map((e) => eventRow(e, view.deliveries[e.id])));
  }

  function eventRow(e, deliveries) {
    const open = state.expanded.has(e.id);
    const toggle = el('button', {
      type: 'button', class: 'secondary', testid: 'event-toggle', 'aria-expanded': String(open),
      text: open ? 'Hide deliveries' : 'Show deliveries',
    });
    toggle.addEventListener('click', () => {
      if (state.expanded.has(e.id)) {
        state.expanded.delete(e.id);
      } else {
        state.expanded.add(e.id);
      }
      toggle.disabled = true;
      state.rendered.delete('events');
      refreshNow();
    });
    const row = el('div', { class: 'event', testid: 'event', 'data-event-id': e.id },
      el('div', { class: 'row' },
        el('strong', { testid: 'event-type', text: e.type }),
        el('span', { class: 'muted mono', text: e.id }),
        timeCell('span', e.timestamp, 'event-time'),
        toggle));
    if (open && deliveries) {
      row.appendChild(deliveries.length === 0
        ? el('p', { class: 'muted', testid: 'event-deliveries', text: 'No endpoint was subscribed to this event.' })
        : el('div', { class: 'deliveries', testid: 'event-deliveries' }, ...deliveries.map(deliveryBlock)));
    }
    return row;
  }

  function deliveryBlock(d) {
    const replay = el('button', { type: 'button', testid: 'delivery-replay', text: 'Replay' });
    replay.addEventListener('click', () => act(replay, async () => {
      await api('POST', '/v1/deliveries/' + encodeURIComponent(d.id) + '/retry');
      notice('Delivery ' + d.id + ' is being sent again.');
    }));
    const statusClass = d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn';
    return el('div', { class: 'delivery status-' + d.status, testid: 'delivery', 'data-delivery-id': d.id },
      el('div', { class: 'row' },
        el('span', { class: 'badge ' + statusClass, testid: 'delivery-status', text: d.status }),
        el('span', { class: 'mono', text: d.id }),
        el('span', { class: 'muted' }, 'to ', el('span', { class: 'mono', text: d.endpoint_id })),
        replay),
      el('p', { class: 'muted' },
        el('span', { testid: 'delivery-attempt-count', text: d.attempt_count }), ' attempts; next retry: ',
        timeCell('span', d.next_attempt_at, 'delivery-next-attempt')),
      attemptsTable(d.attempts || []));
  }

  function attemptsTable(attempts) {
    if (attempts.length === 0) {
      return el('p', { class: 'muted', testid: 'attempts', text: 'No attempt yet.' });
    }
    return el('div', { class: 'table-wrap' },
      el('table', { testid: 'attempts' },
        el('thead', {}, el('tr', {}, ...['#', 'Started', 'Outcome', 'Status', 'Latency', 'Response'].map((t) => el('th', { text: t })))),
        el('tbody', {}, ...attempts.map((a) => el('tr', { testid: 'attempt', 'data-attempt-id': a.id, 'data-outcome': a.outcome },
          el('td', { text: a.number }),
          timeCell('td', a.started_at, 'attempt-started'),
          el('td', { testid: 'attempt-outcome', text: a.outcome }),
          el('td', { testid: 'attempt-status', text: a.status_code === null ? '\u2014' : a.status_code }),
          el('td', { testid: 'attempt-latency', text: a.latency_ms + ' ms' }),
          el('td', {},
            el('pre', { class: 'snippet', testid: 'attempt-response', text: a.response || '' }),
            a.error ? el('p', { class: 'muted', testid: 'attempt-error', text: a.error }) : null))))));
  }

  // --- jobs and rate limits ---------------------------------------------------------------------

  function renderJobs(node, page) {
    if (page.data.length === 0) {
      replaceChildren(node, el('p', { class: 'muted', text: 'No jobs yet (POST /v1/reports starts one).' }));
      return;
    }
    replaceChildren(node, el('div', { class: 'table-wrap' }, el('table', {},
      el('thead', {}, el('tr', {}, ...['Job', 'Kind', 'Status', 'Progress', 'Created', 'Finished'].map((t) => el('th', { text: t })))),
      el('tbody', {}, ...page.data.map((j) => el('tr', { testid: 'job', 'data-job-id': j.id },
        el('td', { class: 'mono', text: j.id }),
        el('td', { text: j.kind }),
        el('td', { testid: 'job-status', title: j.error ? j.error.detail : null, text: j.status + (j.error ? ': ' + j.error.title : '') }),
        el('td', { text: j.progress + '%' }),
        timeCell('td', j.created_at),
        timeCell('td', j.finished_at)))))));
  }

  function renderRateLimits(node, limits) {
    if (!limits.enabled) {
      replaceChildren(node, el('p', { class: 'muted', testid: 'rate-limits-off', text: 'Rate limits are off on this server.' }));
      return;
    }
    replaceChildren(node, el('div', { class: 'table-wrap' }, el('table', {},
      el('thead', {}, el('tr', {}, ...['Policy', 'Scope', 'Limit', 'Remaining', 'Resets'].map((t) => el('th', { text: t })))),
      el('tbody', {}, ...limits.policies.map((p) => el('tr', { testid: 'rate-limit', 'data-policy': p.name },
        el('td', { text: p.name }),
        el('td', { text: p.scope }),
        el('td', { text: p.limit + ' per ' + p.window_seconds + ' s' }),
        el('td', { testid: 'rate-limit-remaining', text: p.known ? p.remaining : 'unknown' }),
        el('td', { text: p.known ? 'in ' + p.reset_seconds + ' s' : '\u2014' })))))));
  }

  // --- start ------------------------------------------------------------------------------------

  function start() {
    byTestId('key-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const input = byTestId('api-key');
      const key = input.value.trim();
      input.value = '';
      if (!key) {
        showError(new ApiError(0, 'API key', 'enter the API key of your account'));
        return;
      }
      clearError();
      sessionStorage.setItem(KEY_STORAGE, key);
      open(key);
    });
    byTestId('forget-key').addEventListener('click', () => {
      forgetKey();
      clearError();
    });
    byTestId('error-dismiss').addEventListener('click', clearError);
    const stored = sessionStorage.getItem(KEY_STORAGE);
    if (stored) {
      open(stored);
    }
  }

  start();
}());
