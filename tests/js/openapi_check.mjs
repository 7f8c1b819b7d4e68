// openapi_check.mjs — checks HTTP answers against an OpenAPI 3.0 document
// (doc/openapi.json), with no packages: the document's own shape, the
// route and operation a request reaches, and a validator for the subset of
// JSON Schema the document uses.
//
// The subset: type (object, array, string, integer, number, boolean),
// nullable, enum, required, properties, additionalProperties (false or a
// schema), items, minItems, maxItems, minimum, maximum, minLength,
// maxLength, pattern, oneOf and $ref to "#/...", plus the annotations
// description, format and default. checkDocument refuses a schema with any
// other keyword, so a keyword this validator would skip cannot slip into
// the document and go unchecked.
//
// Used by api_conformance.mjs; `node openapi_check.mjs DOC.json` checks a
// document alone and runs the validator's self-test.

import { readFileSync } from 'node:fs';

const SCHEMA_KEYWORDS = new Set([
  'type', 'nullable', 'enum', 'required', 'properties', 'additionalProperties', 'items',
  'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'oneOf',
  '$ref', 'description', 'format', 'default',
]);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// The value a "#/a/b" reference names in doc (throws for one that resolves to nothing).
export function resolveRef(doc, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  let v = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (v === null || typeof v !== 'object' || !(part in v)) throw new Error(`unresolved $ref ${ref}`);
    v = v[part];
  }
  return v;
}

// o itself, or what its $ref names (one level: responses, parameters).
export function deref(doc, o) {
  return o && typeof o === 'object' && '$ref' in o ? resolveRef(doc, o.$ref) : o;
}

const typeOf = (v) => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
};

// Errors (strings naming the JSON path) of value against schema; [] when it is valid.
export function validate(doc, schema, value, where = '$', depth = 0) {
  if (depth > 64) return [`${where}: schema nesting too deep`];
  if ('$ref' in schema) return validate(doc, resolveRef(doc, schema.$ref), value, where, depth + 1);
  const errs = [];
  if (value === null) {
    if (schema.nullable === true) return [];
    if (schema.type !== undefined || schema.oneOf === undefined) return [`${where}: null where ${schema.type ?? 'a value'} was expected`];
  }
  if (schema.oneOf) {
    const ok = schema.oneOf.filter((s) => validate(doc, s, value, where, depth + 1).length === 0).length;
    if (ok !== 1) {
      const why = schema.oneOf.map((s, i) => `[${i}] ${validate(doc, s, value, where, depth + 1).join('; ') || 'valid'}`);
      errs.push(`${where}: matches ${ok} of the oneOf's ${schema.oneOf.length} schemas, not exactly one (${why.join(' | ')})`);
    }
  }
  if (schema.type !== undefined) {
    const t = typeOf(value);
    const okType = t === schema.type || (schema.type === 'number' && t === 'integer');
    if (!okType) return errs.concat(`${where}: ${t} where ${schema.type} was expected`);
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    errs.push(`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errs.push(`${where}: ${value} < minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errs.push(`${where}: ${value} > maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    const n = [...value].length;
    if (schema.minLength !== undefined && n < schema.minLength) errs.push(`${where}: length ${n} < minLength ${schema.minLength}`);
    if (schema.maxLength !== undefined && n > schema.maxLength) errs.push(`${where}: length ${n} > maxLength ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      errs.push(`${where}: ${JSON.stringify(value.length > 80 ? value.slice(0, 80) + '...' : value)} does not match ${schema.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errs.push(`${where}: ${value.length} items < minItems ${schema.minItems}`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errs.push(`${where}: ${value.length} items > maxItems ${schema.maxItems}`);
    if (schema.items) value.forEach((v, i) => errs.push(...validate(doc, schema.items, v, `${where}[${i}]`, depth + 1)));
  }
  if (typeOf(value) === 'object') {
    const props = schema.properties || {};
    for (const r of schema.required || []) if (!(r in value)) errs.push(`${where}: missing required field ${r}`);
    for (const [k, v] of Object.entries(value)) {
      const w = `${where}.${k}`;
      if (k in props) errs.push(...validate(doc, props[k], v, w, depth + 1));
      else if (schema.additionalProperties === false) errs.push(`${w}: field not in the schema (additionalProperties false)`);
      else if (typeof schema.additionalProperties === 'object') errs.push(...validate(doc, schema.additionalProperties, v, w, depth + 1));
    }
  }
  return errs;
}

// Problems with a schema's keywords (recursively), as strings.
function checkSchema(doc, s, where, out, seen) {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) { out.push(`${where}: a schema must be an object`); return; }
  for (const k of Object.keys(s)) if (!SCHEMA_KEYWORDS.has(k)) out.push(`${where}: keyword ${k} is outside the validator's subset`);
  if ('$ref' in s) {
    if (Object.keys(s).length !== 1) out.push(`${where}: $ref with siblings (ignored in OpenAPI 3.0)`);
    let t;
    try { t = resolveRef(doc, s.$ref); } catch (e) { out.push(`${where}: ${e.message}`); return; }
    if (!seen.has(s.$ref)) { seen.add(s.$ref); checkSchema(doc, t, s.$ref, out, seen); }
    return;
  }
  if (s.type !== undefined && !TYPES.has(s.type)) out.push(`${where}: unknown type ${s.type}`);
  if (s.nullable !== undefined && typeof s.nullable !== 'boolean') out.push(`${where}: nullable must be a boolean`);
  if (s.nullable === true && s.type === undefined) out.push(`${where}: nullable needs a type (OpenAPI 3.0.3)`);
  if (s.enum !== undefined && (!Array.isArray(s.enum) || s.enum.length === 0)) out.push(`${where}: enum must be a non-empty array`);
  if (s.required !== undefined) {
    if (!Array.isArray(s.required) || s.required.length === 0) out.push(`${where}: required must be a non-empty array`);
    else for (const r of s.required) if (!s.properties || !(r in s.properties)) out.push(`${where}: required ${r} is not among the properties`);
  }
  if (s.pattern !== undefined) { try { new RegExp(s.pattern, 'u'); } catch (e) { out.push(`${where}: bad pattern: ${e.message}`); } }
  if (s.type === 'object' && s.additionalProperties === undefined) {
    out.push(`${where}: an object schema must say additionalProperties (false where the shape is fixed)`);
  }
  if (s.type === 'array' && s.items === undefined) out.push(`${where}: an array schema needs items`);
  for (const [k, v] of Object.entries(s.properties || {})) checkSchema(doc, v, `${where}.properties.${k}`, out, seen);
  if (typeof s.additionalProperties === 'object') checkSchema(doc, s.additionalProperties, `${where}.additionalProperties`, out, seen);
  if (s.items) checkSchema(doc, s.items, `${where}.items`, out, seen);
  (s.oneOf || []).forEach((x, i) => checkSchema(doc, x, `${where}.oneOf[${i}]`, out, seen));
  if (s.default !== undefined) {
    const e = validate(doc, s, s.default, `${where}.default`);
    out.push(...e);
  }
}

// Problems with the document itself (an array of strings; empty when fine):
// the OpenAPI version, every operation's id and responses, every parameter,
// request body, response and header, every $ref, every schema's keywords.
export function checkDocument(doc) {
  const out = [];
  const seen = new Set();
  if (doc.openapi !== '3.0.3') out.push(`openapi is ${doc.openapi}, not 3.0.3`);
  if (!doc.info || typeof doc.info.title !== 'string' || typeof doc.info.version !== 'string') out.push('info needs title and version');
  if (!doc.paths || typeof doc.paths !== 'object') { out.push('no paths'); return out; }
  const schemes = (doc.components && doc.components.securitySchemes) || {};
  const checkSecurity = (sec, where) => {
    if (!Array.isArray(sec)) { out.push(`${where}: security must be an array`); return; }
    for (const req of sec) for (const name of Object.keys(req)) if (!(name in schemes)) out.push(`${where}: unknown security scheme ${name}`);
  };
  if (doc.security) checkSecurity(doc.security, 'security');
  const opIds = new Set();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/')) out.push(`path ${path} does not start with /`);
    const templ = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const ops = METHODS.filter((m) => m in item);
    if (ops.length === 0) out.push(`${path}: no operations`);
    for (const k of Object.keys(item)) if (k !== 'parameters' && !METHODS.includes(k)) out.push(`${path}: unexpected ${k}`);
    for (const m of ops) {
      const o = item[m];
      const where = `${m.toUpperCase()} ${path}`;
      if (!o.operationId) out.push(`${where}: no operationId`);
      else if (opIds.has(o.operationId)) out.push(`${where}: operationId ${o.operationId} twice`);
      else opIds.add(o.operationId);
      if (o.security) checkSecurity(o.security, where);
      const params = [...(item.parameters || []), ...(o.parameters || [])];
      const pathParams = new Set();
      for (const p0 of params) {
        let p;
        try { p = deref(doc, p0); } catch (e) { out.push(`${where}: ${e.message}`); continue; }
        if (!['path', 'query', 'header'].includes(p.in)) out.push(`${where}: parameter ${p.name} in ${p.in}`);
        if (p.in === 'path') {
          pathParams.add(p.name);
          if (p.required !== true) out.push(`${where}: path parameter ${p.name} must be required`);
        }
        if (!p.schema) out.push(`${where}: parameter ${p.name} without a schema`);
        else checkSchema(doc, p.schema, `${where} parameter ${p.name}`, out, seen);
      }
      for (const t of templ) if (!pathParams.has(t)) out.push(`${where}: {${t}} has no parameter`);
      for (const t of pathParams) if (!templ.includes(t)) out.push(`${where}: path parameter ${t} not in the path`);
      if (o.requestBody) {
        let b;
        try { b = deref(doc, o.requestBody); } catch (e) { out.push(`${where}: ${e.message}`); b = null; }
        if (b) {
          if (!b.content || Object.keys(b.content).length === 0) out.push(`${where}: request body without content`);
          for (const [mt, c] of Object.entries(b.content || {})) {
            if (!c.schema) out.push(`${where}: request ${mt} without a schema`);
            else checkSchema(doc, c.schema, `${where} request ${mt}`, out, seen);
          }
        }
      }
      if (!o.responses || Object.keys(o.responses).length === 0) { out.push(`${where}: no responses`); continue; }
      for (const [code, r0] of Object.entries(o.responses)) {
        if (!/^[1-5][0-9][0-9]$/.test(code)) out.push(`${where}: response ${code} is not a status code`);
        let r;
        try { r = deref(doc, r0); } catch (e) { out.push(`${where} ${code}: ${e.message}`); continue; }
        if (typeof r.description !== 'string') out.push(`${where} ${code}: no description`);
        for (const [mt, c] of Object.entries(r.content || {})) {
          if (!c.schema) out.push(`${where} ${code} ${mt}: no schema`);
          else checkSchema(doc, c.schema, `${where} ${code} ${mt}`, out, seen);
        }
        for (const [h, hd] of Object.entries(r.headers || {})) {
          if (!hd.schema) out.push(`${where} ${code} header ${h}: no schema`);
          else checkSchema(doc, hd.schema, `${where} ${code} header ${h}`, out, seen);
        }
      }
    }
  }
  for (const [name, s] of Object.entries((doc.components && doc.components.schemas) || {})) {
    checkSchema(doc, s, `#/components/schemas/${name}`, out, seen);
  }
  return out;
}

// The route a request path reaches: {path, item, params} or null. Literal
// segments win over templated ones, as OpenAPI asks.
export function matchPath(doc, pathname) {
  const segs = pathname.split('/');
  let best = null;
  for (const [path, item] of Object.entries(doc.paths)) {
    const ts = path.split('/');
    if (ts.length !== segs.length) continue;
    const params = {};
    let literal = 0;
    let ok = true;
    for (let i = 0; i < ts.length && ok; i++) {
      const m = /^\{([^}]+)\}$/.exec(ts[i]);
      if (m) {
        if (segs[i] === '') ok = false;
        else params[m[1]] = decodeURIComponent(segs[i]);
      } else if (ts[i] === segs[i]) literal++;
      else ok = false;
    }
    if (ok && (!best || literal > best.literal)) best = { path, item, params, literal };
  }
  return best;
}

// The operation (and its route) for method and pathname: {path, item,
// method, op, params}; op is null for a known route with another method;
// null for an unknown route.
export function findOperation(doc, method, pathname) {
  const m = matchPath(doc, pathname);
  if (!m) return null;
  const lm = method.toLowerCase();
  return { ...m, method: lm, op: METHODS.includes(lm) && m.item[lm] ? m.item[lm] : null };
}

// Whether an operation needs the bearer token (its own security, else the document's).
export function needsToken(doc, op) {
  const sec = op.security !== undefined ? op.security : doc.security || [];
  return sec.length > 0 && !sec.some((r) => Object.keys(r).length === 0);
}

const mediaEssence = (ct) => (ct || '').split(';')[0].trim().toLowerCase();

// Checks one answer against the document. res: {status, headers (lower-case
// names), body (Buffer)}. Returns {errors, opKey, json}: opKey is
// "METHOD /template" of the operation reached, or "unknown route" or
// "METHOD /template (other method)".
export function checkAnswer(doc, method, pathname, res) {
  const errors = [];
  const found = findOperation(doc, method, pathname);
  let response;
  let opKey;
  const comps = (doc.components && doc.components.responses) || {};
  if (!found) {
    opKey = 'unknown route';
    const allowed = { 404: comps.NotFound, 401: comps.Unauthorized };
    response = allowed[res.status];
    if (!response) errors.push(`${method} ${pathname}: an unknown route answered ${res.status}, not 404 (or 401 over TCP)`);
  } else if (!found.op) {
    opKey = `${method.toUpperCase()} ${found.path} (other method)`;
    const allowed = { 405: comps.MethodNotAllowed, 401: comps.Unauthorized };
    response = allowed[res.status];
    if (!response) errors.push(`${method} ${pathname}: a known route with another method answered ${res.status}, not 405 (or 401 over TCP)`);
    if (res.status === 405) {
      const allow = (res.headers.allow || '').split(',').map((s) => s.trim().toLowerCase());
      for (const m of METHODS.filter((x) => found.item[x])) {
        if (!allow.includes(m)) errors.push(`${method} ${pathname}: 405 whose Allow (${res.headers.allow ?? 'absent'}) lacks ${m.toUpperCase()}`);
      }
    }
  } else {
    opKey = `${method.toUpperCase()} ${found.path}`;
    const r0 = found.op.responses[String(res.status)];
    if (!r0) errors.push(`${opKey}: status ${res.status} is not among the documented ${Object.keys(found.op.responses).join(', ')}`);
    else response = deref(doc, r0);
  }
  let json;
  if (response) {
    const where = `${method.toUpperCase()} ${pathname} -> ${res.status}`;
    for (const [h, hd] of Object.entries(response.headers || {})) {
      const v = res.headers[h.toLowerCase()];
      if (v === undefined) errors.push(`${where}: header ${h} missing`);
      else errors.push(...validate(doc, hd.schema, v, `${where} header ${h}`));
    }
    const content = response.content || {};
    if (Object.keys(content).length === 0) {
      if (res.body.length !== 0) errors.push(`${where}: ${res.body.length} body bytes where the document lists none`);
    } else {
      const mt = mediaEssence(res.headers['content-type']);
      const c = content[mt];
      if (!c) errors.push(`${where}: Content-Type ${res.headers['content-type'] ?? '(none)'}, not one of ${Object.keys(content).join(', ')}`);
      else if (mt === 'application/json') {
        try {
          json = JSON.parse(res.body.toString('utf8'));
        } catch (e) {
          errors.push(`${where}: the body is not JSON (${e.message}): ${res.body.toString('utf8').slice(0, 200)}`);
        }
        if (json !== undefined) errors.push(...validate(doc, c.schema, json, where));
      } else if (c.schema && c.schema.type === 'string' && c.schema.format !== 'binary') {
        const text = res.body.toString('utf8');
        if (Buffer.from(text, 'utf8').compare(res.body) !== 0) errors.push(`${where}: a text body that is not UTF-8`);
      }
    }
  }
  return { errors, opKey, json };
}

// Every operation of the document as "METHOD /template".
export function operationKeys(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) if (item[m]) out.push(`${m.toUpperCase()} ${path}`);
  }
  return out;
}

// The validator's own test: values each keyword must accept and refuse.
export function selfTest() {
  const doc = { components: { schemas: { N: { type: 'integer', minimum: 1 } } } };
  const cases = [
    [{ type: 'integer' }, 3, true], [{ type: 'integer' }, 3.5, false], [{ type: 'number' }, 3, true],
    [{ type: 'string' }, null, false], [{ type: 'string', nullable: true }, null, true],
    [{ type: 'boolean' }, 0, false], [{ type: 'array', items: { type: 'string' } }, ['a', 1], false],
    [{ enum: ['a', 'b'] }, 'c', false], [{ enum: ['a', 'b'] }, 'b', true],
    [{ type: 'integer', minimum: 0, maximum: 2 }, 3, false], [{ type: 'integer', minimum: 0 }, -1, false],
    [{ type: 'string', minLength: 2 }, 'a', false], [{ type: 'string', maxLength: 2 }, 'abc', false],
    [{ type: 'string', pattern: '^[0-9]+$' }, '12a', false], [{ type: 'string', pattern: '^[0-9]+$' }, '12', true],
    [{ type: 'array', minItems: 1, items: {} }, [], false], [{ type: 'array', maxItems: 1, items: {} }, [1, 2], false],
    [{ type: 'object', required: ['a'], properties: { a: {} }, additionalProperties: false }, {}, false],
    [{ type: 'object', properties: { a: {} }, additionalProperties: false }, { b: 1 }, false],
    [{ type: 'object', properties: {}, additionalProperties: { type: 'integer' } }, { b: 'x' }, false],
    [{ type: 'object', properties: {}, additionalProperties: true }, { b: 'x' }, true],
    [{ $ref: '#/components/schemas/N' }, 0, false], [{ $ref: '#/components/schemas/N' }, 1, true],
    [{ oneOf: [{ type: 'integer' }, { type: 'number' }] }, 1, false],
    [{ oneOf: [{ type: 'integer' }, { type: 'string' }] }, 'x', true],
    [{ type: 'object', properties: {}, additionalProperties: false }, [], false],
  ];
  const bad = [];
  cases.forEach(([s, v, want], i) => {
    const got = validate(doc, s, v).length === 0;
    if (got !== want) bad.push(`self-test case ${i}: ${JSON.stringify(s)} on ${JSON.stringify(v)} gave ${got}, not ${want}`);
  });
  const probe = [];
  checkSchema(doc, { type: 'string', const: 'x' }, 'probe', probe, new Set());
  if (probe.length === 0) bad.push('self-test: an unsupported keyword (const) was not refused');
  return bad;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: node openapi_check.mjs DOC.json');
    process.exit(2);
  }
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  const problems = [...selfTest(), ...checkDocument(doc)];
  for (const p of problems) console.error(`openapi_check: ${p}`);
  if (problems.length) process.exit(1);
  console.log(`openapi_check: ${path}: ${operationKeys(doc).length} operations, fine`);
}
