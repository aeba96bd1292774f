// The reference MCP server of typeward's router tests, built on the official
// TypeScript SDK: what the conformance suite's server scenarios
// (@modelcontextprotocol/conformance, requirement set 2025-11-25) call, as
// their checks describe it (tools, resources, prompts, completions, logging,
// progress, sampling and elicitation inside a tool call, sessions, SSE
// resumption and polling), plus bench_rows for the router's latency
// benchmark (a 20-row structuredContent under an outputSchema).
//
//   node server.mjs [--stateless] [--json]
//
// Listens on 127.0.0.1, a free port, and prints "listening http://…/mcp" on
// stdout. --stateless: no sessions (one server per request); --json: JSON
// answers, no SSE.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, CompleteRequestSchema, CreateMessageResultSchema, ElicitResultSchema,
  GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema,
  SubscribeRequestSchema, UnsubscribeRequestSchema, McpError, ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

const stateless = process.argv.includes('--stateless');
const json = process.argv.includes('--json');

// A 1x1 PNG and a WAV file with one sample.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const none = { type: 'object', properties: {} };
const text = (t) => ({ content: [{ type: 'text', text: t }] });

// The benchmark's tool (bench-rows.json, which the Go tests read too): a
// 20-row structuredContent under an outputSchema, the same every call.
const bench = JSON.parse(readFileSync(new URL('./bench-rows.json', import.meta.url), 'utf8'));
const benchText = JSON.stringify(bench.structuredContent);

async function elicit(extra, message, requestedSchema, label) {
  const r = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } }, ElicitResultSchema);
  return text(`${label}: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
}

// tools: name -> declaration and what a call does (args, extra, request).
const tools = {
  test_simple_text: { run: async () => text('This is a simple text response for testing.') },
  test_image_content: { run: async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }) },
  test_audio_content: { run: async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }) },
  test_embedded_resource: {
    run: async () => ({ content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }),
  },
  test_multiple_content_types: {
    run: async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ],
    }),
  },
  test_tool_with_logging: {
    run: async (_a, extra) => {
      for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (i > 0) await sleep(50);
        await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'reference', data } });
      }
      return text('Tool with logging executed successfully');
    },
  },
  test_tool_with_progress: {
    run: async (_a, extra, req) => {
      const token = req.params._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message: `Completed step ${progress} of 100` } });
        }
      }
      return text(`progress reported to ${JSON.stringify(token ?? null)}`);
    },
  },
  test_error_handling: { run: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }) },
  test_reconnection: {
    // SEP-1699: the server closes the call's stream; the client polls back
    // (GET with Last-Event-ID) after retry and gets the result.
    run: async (_a, extra) => {
      extra.closeSSEStream?.();
      await sleep(100);
      return text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
    },
  },
  test_sampling: {
    inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    run: async (a, extra) => {
      const r = await extra.sendRequest({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: a.prompt } }], maxTokens: 100 },
      }, CreateMessageResultSchema);
      return text(`LLM response: ${r.content?.text ?? 'none'}`);
    },
  },
  test_elicitation: {
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    run: (a, extra) => elicit(extra, a.message, {
      type: 'object',
      properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
      required: ['username', 'email'],
    }, 'User response'),
  },
  test_elicitation_sep1034_defaults: {
    run: (_a, extra) => elicit(extra, 'Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    }, 'Elicitation completed'),
  },
  test_elicitation_sep1330_enums: {
    run: (_a, extra) => elicit(extra, 'Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string', description: 'Select one option with titles',
          oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }],
        },
        legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: {
          type: 'array', description: 'Select multiple options with titles', minItems: 1, maxItems: 3,
          items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] },
        },
      },
      required: [],
    }, 'Elicitation completed'),
  },
  json_schema_2020_12_tool: {
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: {
        name: { type: 'string' }, address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
    run: async (a) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(a)}`),
  },
  bench_rows: {
    inputSchema: bench.inputSchema,
    outputSchema: bench.outputSchema,
    run: async () => ({ structuredContent: bench.structuredContent, content: [{ type: 'text', text: benchText }] }),
  },
};

const resources = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource for testing', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (image) for testing', mimeType: 'image/png', blob: PNG },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain', text: 'Watched resource content' },
];
const template = /^test:\/\/template\/([^/]+)\/data$/;

const prompts = {
  test_simple_prompt: {
    description: 'A simple prompt without arguments',
    get: () => [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  },
  test_prompt_with_arguments: {
    description: 'A prompt with required arguments',
    arguments: [{ name: 'arg1', description: 'First test argument', required: true }, { name: 'arg2', description: 'Second test argument', required: true }],
    get: (a) => [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` } }],
  },
  test_prompt_with_embedded_resource: {
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: (a) => [
      { role: 'user', content: { type: 'resource', resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  },
  test_prompt_with_image: {
    description: 'A prompt that includes image content',
    get: () => [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  },
};
const completions = { arg1: ['paris', 'park', 'party'], arg2: ['world', 'word'], resourceUri: ['test://static-text'], id: ['123', '124'] };

function newServer() {
  const server = new Server({ name: 'typeward-reference', version: '1.0.0' }, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
  });
  const subscriptions = new Set();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.entries(tools).map(([name, t]) => ({
      name, description: `typeward reference tool ${name}`, inputSchema: t.inputSchema ?? none,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const t = tools[req.params.name];
    if (!t) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${req.params.name}`);
    return t.run(req.params.arguments ?? {}, extra, req);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: resources.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', description: 'A resource template with parameter substitution', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    const r = resources.find((x) => x.uri === uri);
    if (r) return { contents: [r.blob ? { uri, mimeType: r.mimeType, blob: r.blob } : { uri, mimeType: r.mimeType, text: r.text }] };
    const m = template.exec(uri);
    if (m) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }] };
    throw new McpError(-32002, `resource not found: ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req) => { subscriptions.add(req.params.uri); return {}; });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => { subscriptions.delete(req.params.uri); return {}; });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: Object.entries(prompts).map(([name, p]) => ({ name, description: p.description, ...(p.arguments ? { arguments: p.arguments } : {}) })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const p = prompts[req.params.name];
    if (!p) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${req.params.name}`);
    const args = req.params.arguments ?? {};
    for (const a of p.arguments ?? []) {
      if (a.required && typeof args[a.name] !== 'string') throw new McpError(ErrorCode.InvalidParams, `prompt ${req.params.name} needs argument ${a.name}`);
    }
    return { description: p.description, messages: p.get(args) };
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const values = (completions[req.params.argument.name] ?? []).filter((v) => v.startsWith(req.params.argument.value ?? ''));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

// An event store in memory (SEP-1699 resumption): event ids are
// "<stream>::<sequence>", replayed in order.
function eventStore() {
  const events = [];
  let seq = 0;
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}::${String(++seq).padStart(8, '0')}`;
      events.push({ eventId, streamId, message });
      return eventId;
    },
    async getStreamIdForEventId(eventId) { return events.find((e) => e.eventId === eventId)?.streamId; },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.split('::')[0];
      for (const e of events) {
        if (e.streamId === streamId && e.eventId > lastEventId && Object.keys(e.message).length > 0) await send(e.eventId, e.message);
      }
      return streamId;
    },
  };
}

// DNS rebinding: a localhost server accepts only localhost Host and Origin.
const local = new Set(['localhost', '127.0.0.1', '[::1]']);
function hostOK(req) {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  if (!local.has(host)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try { return local.has(new URL(origin).hostname.toLowerCase()) || local.has(`[${new URL(origin).hostname}]`); } catch { return false; }
}

const sessions = new Map(); // Mcp-Session-Id -> transport

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const s = Buffer.concat(chunks).toString('utf8');
  return s === '' ? undefined : JSON.parse(s);
}

function fail(res, status, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

const httpServer = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, 'http://localhost').pathname !== '/mcp') return fail(res, 404, 'not found');
    if (!hostOK(req)) return fail(res, 403, 'Host or Origin is not localhost');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (stateless) {
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
      const s = newServer();
      res.on('close', () => { t.close(); s.close(); });
      await s.connect(t);
      return await t.handleRequest(req, res, body);
    }
    const sid = req.headers['mcp-session-id'];
    if (sid !== undefined) {
      const t = sessions.get(sid);
      if (!t) return fail(res, 404, 'unknown session');
      return await t.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || body?.method !== 'initialize') return fail(res, 400, 'no Mcp-Session-Id and not an initialize request');
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      eventStore: eventStore(),
      retryInterval: 500,
      onsessioninitialized: (id) => sessions.set(id, t),
      onsessionclosed: (id) => sessions.delete(id),
    });
    t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
    await newServer().connect(t);
    await t.handleRequest(req, res, body);
  } catch (err) {
    if (!res.headersSent) fail(res, err instanceof SyntaxError ? 400 : 500, String(err?.message ?? err));
  }
});
httpServer.keepAliveTimeout = 120_000;
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
