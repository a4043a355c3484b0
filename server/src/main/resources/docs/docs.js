// Renders /openapi.json for people. Every piece of text from the document goes into the page as
// text (textContent or text nodes), never as HTML; links are only made to this site's own paths.
'use strict';

(function () {
  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const MAX_DEPTH = 6;
  let doc = {};

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'class') {
        node.className = value;
      } else if (key === 'href') {
        node.setAttribute('href', safeHref(value));
      } else {
        node.setAttribute(key, String(value));
      }
    }
    for (const child of children) {
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : String(child));
      }
    }
    return node;
  }

  // Only fragments and paths of this server: a document can never point the page elsewhere.
  function safeHref(href) {
    const text = String(href);
    return (text.startsWith('#') || (text.startsWith('/') && !text.startsWith('//'))) ? text : '#';
  }

  function anchor(prefix, name) {
    return prefix + '-' + String(name).replace(/[^A-Za-z0-9_.-]/g, '_');
  }

  // `code` and **strong** inside a line of text.
  function inline(text) {
    const span = el('span');
    for (const part of String(text).split(/(`[^`]*`|\*\*[^*]+\*\*)/)) {
      if (part.startsWith('`') && part.endsWith('`') && part.length >= 2) {
        span.append(el('code', null, part.slice(1, -1)));
      } else if (part.startsWith('**') && part.endsWith('**') && part.length >= 4) {
        span.append(el('strong', null, part.slice(2, -2)));
      } else if (part) {
        span.append(part);
      }
    }
    return span;
  }

  // Paragraphs and "- " lists of a CommonMark description, enough for this document.
  function desc(text) {
    const box = el('div', { class: 'desc' });
    if (!text) {
      return box;
    }
    for (const block of String(text).split(/\n\s*\n/)) {
      const lines = block.split('\n');
      if (lines[0].trim().startsWith('- ')) {
        const list = el('ul');
        let item = null;
        for (const line of lines) {
          if (line.trim().startsWith('- ')) {
            item = [line.trim().slice(2)];
            list.append(el('li'));
          } else if (item) {
            item.push(line.trim());
          }
          if (item) {
            list.lastChild.replaceChildren(inline(item.join(' ')));
          }
        }
        box.append(list);
      } else {
        box.append(el('p', null, inline(lines.map((l) => l.trim()).join(' '))));
      }
    }
    return box;
  }

  function resolve(ref) {
    if (typeof ref !== 'string' || !ref.startsWith('#/')) {
      return undefined;
    }
    let node = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || !(key in node)) {
        return undefined;
      }
      node = node[key];
    }
    return node;
  }

  function deref(node) {
    let current = node;
    for (let i = 0; i < 10 && current && typeof current === 'object' && current.$ref; i++) {
      current = resolve(current.$ref);
    }
    return current || {};
  }

  function refName(ref) {
    return String(ref).split('/').pop();
  }

  function json(value) {
    return el('pre', null, JSON.stringify(value, null, 2));
  }

  function label(schema) {
    const parts = [];
    if ('const' in schema) {
      parts.push('= ' + JSON.stringify(schema.const));
    }
    if (Array.isArray(schema.enum)) {
      parts.push('one of ' + schema.enum.map((v) => JSON.stringify(v)).join(' | '));
    }
    if (schema.type) {
      parts.push(Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type);
    }
    if (schema.format) {
      parts.push('(' + schema.format + ')');
    }
    const limits = [];
    for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default']) {
      if (key in schema) {
        limits.push(key + ' ' + JSON.stringify(schema[key]));
      }
    }
    if (limits.length) {
      parts.push('[' + limits.join(', ') + ']');
    }
    return parts.join(' ');
  }

  function schemaView(schema, depth) {
    const box = el('div', { class: 'schema' });
    if (schema === undefined || schema === true || (schema && Object.keys(schema).length === 0)) {
      box.append(el('span', { class: 'muted' }, 'any'));
      return box;
    }
    if (schema === false) {
      box.append(el('span', { class: 'muted' }, 'nothing'));
      return box;
    }
    if (depth > MAX_DEPTH) {
      box.append(el('span', { class: 'muted' }, '…'));
      return box;
    }
    if (schema.$ref) {
      const name = refName(schema.$ref);
      box.append(schema.$ref.startsWith('#/components/schemas/')
        ? el('a', { href: '#' + anchor('schema', name) }, name)
        : el('code', null, name));
    }
    const text = label(schema);
    if (text) {
      box.append(el('code', null, text));
    }
    for (const key of ['oneOf', 'anyOf', 'allOf']) {
      if (Array.isArray(schema[key])) {
        const list = el('ul', { class: 'nested' });
        for (const option of schema[key]) {
          const item = el('li', null, schemaView(option, depth + 1));
          if (option && option.title) {
            item.prepend(el('strong', null, option.title + ' '));
          }
          if (option && typeof option.const === 'string' && option.const.startsWith('/problems/')) {
            item.append(el('a', { href: option.const }, option.const));
          }
          if (option && option.description && !option.$ref) {
            item.append(desc(option.description));
          }
          list.append(item);
        }
        box.append(el('div', { class: 'muted' }, key === 'allOf' ? 'all of:' : 'one of:'), list);
      }
    }
    if (schema.properties) {
      const required = new Set(schema.required || []);
      const table = el('table', null, el('tr', null, el('th', null, 'member'), el('th', null, 'schema'), el('th', null, 'description')));
      for (const [name, prop] of Object.entries(schema.properties)) {
        table.append(el('tr', null,
          el('td', { class: 'name' }, el('code', null, name), required.has(name) ? el('span', { class: 'required' }, 'required') : null),
          el('td', null, schemaView(prop, depth + 1)),
          el('td', null, desc(prop && prop.description))));
      }
      box.append(el('div', { class: 'nested' }, table));
    } else if (schema.required) {
      box.append(el('div', { class: 'muted' }, 'required: ' + schema.required.join(', ')));
    }
    if (schema.items) {
      box.append(el('div', { class: 'nested' }, el('span', { class: 'muted' }, 'items: '), schemaView(schema.items, depth + 1)));
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      box.append(el('div', { class: 'nested' }, el('span', { class: 'muted' }, 'values: '), schemaView(schema.additionalProperties, depth + 1)));
    }
    if ('example' in schema && depth === 0) {
      box.append(el('div', { class: 'muted' }, 'example'), json(schema.example));
    }
    return box;
  }

  function parametersView(params) {
    if (!params.length) {
      return null;
    }
    const table = el('table', null, el('tr', null, el('th', null, 'name'), el('th', null, 'in'), el('th', null, 'schema'),
      el('th', null, 'description')));
    for (const raw of params) {
      const p = deref(raw);
      const description = desc(p.description);
      if ('example' in p) {
        description.append(el('div', null, el('span', { class: 'muted' }, 'example: '), el('code', null, String(p.example))));
      }
      table.append(el('tr', null,
        el('td', { class: 'name' }, el('code', null, p.name), p.required ? el('span', { class: 'required' }, 'required') : null),
        el('td', null, p.in),
        el('td', null, schemaView(p.schema, 1)),
        el('td', null, description)));
    }
    return el('div', null, el('h4', null, 'Parameters'), table);
  }

  function contentView(content) {
    const box = el('div');
    for (const [media, body] of Object.entries(content || {})) {
      box.append(el('div', null, el('code', null, media)), schemaView(body.schema, 0));
      if ('example' in body) {
        box.append(el('div', { class: 'muted' }, 'example'), json(body.example));
      }
    }
    return box;
  }

  // Shared headers (references to components/headers) as one line of links, described once in
  // the Headers section; headers written out in place as a table.
  function headersView(headers) {
    const entries = Object.entries(headers || {});
    if (!entries.length) {
      return null;
    }
    const box = el('div');
    const shared = entries.filter(([, h]) => h && h.$ref);
    if (shared.length) {
      const line = el('div', null, el('span', { class: 'muted' }, 'headers: '));
      shared.forEach(([name, h], i) => {
        line.append(i ? ', ' : '', el('a', { href: '#' + anchor('header', refName(h.$ref)) }, name));
        if (deref(h).required) {
          line.append(el('span', { class: 'required' }, 'always'));
        }
      });
      box.append(line);
    }
    const own = entries.filter(([, h]) => !(h && h.$ref));
    if (own.length) {
      box.append(headerTable(own, false));
    }
    return box;
  }

  function headerTable(entries, withIds) {
    const table = el('table', null, el('tr', null, el('th', null, 'header'), el('th', null, 'schema'), el('th', null, 'description')));
    for (const [name, raw] of entries) {
      const h = deref(raw);
      table.append(el('tr', withIds ? { id: anchor('header', name) } : null,
        el('td', { class: 'name' }, el('code', null, name), h.required ? el('span', { class: 'required' }, 'always') : null),
        el('td', null, schemaView(h.schema, 1)),
        el('td', null, desc(h.description))));
    }
    return table;
  }

  function responsesView(responses) {
    const box = el('div', null, el('h4', null, 'Responses'));
    for (const [status, raw] of Object.entries(responses || {})) {
      const r = deref(raw);
      const item = el('div', { class: 'response' }, el('span', { class: 'status' }, status + ' '), inline(r.description || ''));
      const headers = headersView(r.headers);
      if (headers) {
        item.append(headers);
      }
      if (r.content) {
        item.append(contentView(r.content));
      }
      box.append(item);
    }
    return box;
  }

  function operationView(id, method, path, op, pathParams, isWebhook) {
    const security = op.security || doc.security || [];
    const box = el('section', { class: 'op', id: id });
    box.dataset.search = [method, path, op.summary, op.operationId, (op.tags || []).join(' ')].join(' ').toLowerCase();
    box.append(el('h3', null, el('span', { class: 'method ' + method }, method), el('span', { class: 'path' }, path),
      el('span', { class: 'summary' }, op.summary || '')));
    box.append(el('div', { class: 'auth' }, isWebhook ? 'Sent by the server to your endpoint, signed.'
      : (security.length ? 'Authorization: Bearer <API key>' : 'No authentication')));
    box.append(desc(op.description));
    const params = parametersView([...(pathParams || []), ...(op.parameters || [])]);
    if (params) {
      box.append(params);
    }
    if (op.requestBody) {
      const body = deref(op.requestBody);
      box.append(el('h4', null, isWebhook ? 'Payload' : 'Request body'), desc(body.description), contentView(body.content));
    }
    box.append(responsesView(op.responses));
    return box;
  }

  function render() {
    const nav = document.getElementById('nav');
    const main = document.getElementById('content');
    const info = doc.info || {};
    document.getElementById('title').textContent = (info.title || 'API') + ' ' + (info.version || '');
    main.replaceChildren(el('p', null, inline(info.summary || '')), desc(info.description));

    const tags = (doc.tags || []).map((t) => t.name);
    const byTag = new Map(tags.map((t) => [t, []]));
    for (const [path, item] of Object.entries(doc.paths || {})) {
      for (const method of METHODS) {
        if (item[method]) {
          const tag = (item[method].tags || ['Other'])[0];
          if (!byTag.has(tag)) {
            byTag.set(tag, []);
          }
          byTag.get(tag).push({ path, method, op: item[method], params: item.parameters });
        }
      }
    }
    for (const [tag, ops] of byTag) {
      if (!ops.length) {
        continue;
      }
      const tagInfo = (doc.tags || []).find((t) => t.name === tag) || {};
      main.append(el('h2', { id: anchor('tag', tag) }, tag), desc(tagInfo.description));
      const list = el('ul');
      for (const { path, method, op, params } of ops) {
        const id = anchor('op', op.operationId || method + path);
        main.append(operationView(id, method, path, op, params, false));
        list.append(el('li', { 'data-for': id }, el('a', { href: '#' + id }, method.toUpperCase() + ' ' + path)));
      }
      nav.append(el('h2', null, tag), list);
    }

    const hooks = Object.entries(doc.webhooks || {});
    if (hooks.length) {
      main.append(el('h2', { id: 'webhooks' }, 'Webhooks'),
        desc('Each event is POSTed to every subscribed endpoint as `{id, type, timestamp, data}`, signed with '
          + 'Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).'));
      const list = el('ul');
      for (const [name, item] of hooks) {
        for (const method of METHODS) {
          if (item[method]) {
            const id = anchor('webhook', name);
            main.append(operationView(id, method, name, item[method], item.parameters, true));
            list.append(el('li', { 'data-for': id }, el('a', { href: '#' + id }, name)));
          }
        }
      }
      nav.append(el('h2', null, 'Webhooks'), list);
    }

    const headers = Object.entries((doc.components || {}).headers || {});
    if (headers.length) {
      main.append(el('h2', { id: 'headers' }, 'Headers'), headerTable(headers, true));
      nav.append(el('h2', null, el('a', { href: '#headers' }, 'Headers')));
    }

    const schemas = Object.entries((doc.components || {}).schemas || {});
    if (schemas.length) {
      main.append(el('h2', { id: 'schemas' }, 'Schemas'));
      const list = el('ul');
      for (const [name, schema] of schemas) {
        const id = anchor('schema', name);
        const box = el('section', { class: 'op', id: id }, el('h3', null, el('span', { class: 'path' }, name)));
        box.dataset.search = ('schema ' + name).toLowerCase();
        box.append(desc(schema.description), schemaView(schema, 0));
        main.append(box);
        list.append(el('li', { 'data-for': id }, el('a', { href: '#' + id }, name)));
      }
      nav.append(el('h2', null, 'Schemas'), list);
    }
  }

  function filter(query) {
    const q = query.trim().toLowerCase();
    for (const box of document.querySelectorAll('section.op')) {
      const hide = q !== '' && !box.dataset.search.includes(q);
      box.classList.toggle('hidden', hide);
      const link = document.querySelector('nav li[data-for="' + box.id + '"]');
      if (link) {
        link.classList.toggle('hidden', hide);
      }
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    document.getElementById('filter').addEventListener('input', (event) => filter(event.target.value));
    fetch('/openapi.json', { headers: { Accept: 'application/json' } })
      .then((response) => {
        if (!response.ok) {
          throw new Error('/openapi.json answered ' + response.status);
        }
        return response.json();
      })
      .then((document_) => {
        doc = document_;
        render();
        if (location.hash) {
          const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
          if (target) {
            target.scrollIntoView();
          }
        }
      })
      .catch((error) => {
        document.getElementById('status').textContent = 'Could not load /openapi.json: ' + error.message;
      });
  });
}());
