// An interactive MCP host as the official TypeScript SDK makes one: the
// SDK's auth() with an OAuthClientProvider, against typeward route with no
// token. It is sent through discovery (the 401's resource_metadata, RFC
// 9728, RFC 8414), becomes a client (TW_MODE=registration: RFC 7591
// dynamic registration; TW_MODE=cimd: the client ID metadata document at
// TW_CIMD_URL), and its redirectToAuthorization drives headless Chromium
// (playwright-core at TW_PLAYWRIGHT, Debian's /usr/bin/chromium) through
// typeward's sign-in and consent (Approve). Then it lists and calls a tool,
// refreshes its token through auth() and calls again. Prints one JSON
// object for the Go test to check.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import http from 'node:http'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v }
const serverUrl = new URL(env('TW_MCP_URL'))
const mode = env('TW_MODE')
const tool = env('TW_TOOL')
const args = JSON.parse(env('TW_ARGS'))
const { chromium } = await import(pathToFileURL(env('TW_PLAYWRIGHT')).href)
const out = { mode, steps: [] }
const step = (s) => out.steps.push(s)

// The redirect target: a loopback server that takes the code.
let codeArrived
const codes = new Promise((resolve) => { codeArrived = resolve })
const callback = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1')
  if (u.pathname !== '/callback') { res.writeHead(404).end(); return }
  codeArrived({ code: u.searchParams.get('code'), state: u.searchParams.get('state'), iss: u.searchParams.get('iss'), error: u.searchParams.get('error') })
  res.writeHead(200, { 'content-type': 'text/plain' }).end('done: return to the host')
})
await new Promise((r) => callback.listen(Number(process.env.TW_CALLBACK_PORT ?? 0), '127.0.0.1', r))
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`

const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'typeward-sdk-host-'))
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
})

// The provider keeps everything in memory, as a host's store would.
const store = {}
const provider = {
  get redirectUrl () { return redirectUrl },
  get clientMetadata () {
    return { client_name: 'typeward SDK host test', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' }
  },
  clientMetadataUrl: mode === 'cimd' ? env('TW_CIMD_URL') : undefined,
  state: () => 'state-' + Math.random().toString(36).slice(2),
  clientInformation: () => store.client,
  saveClientInformation: (c) => { store.client = c; step('client ' + (c.client_id === process.env.TW_CIMD_URL ? 'by metadata document' : 'registered')) },
  tokens: () => store.tokens,
  saveTokens: (t) => { store.tokens = t; step(store.tokensSaved ? 'tokens refreshed' : 'tokens'); store.tokensSaved = true },
  saveCodeVerifier: (v) => { store.verifier = v },
  codeVerifier: () => store.verifier,
  redirectToAuthorization: async (url) => {
    step('redirected to ' + url.origin + url.pathname)
    out.authorizationRequest = Object.fromEntries(url.searchParams)
    const page = browser.pages()[0] ?? await browser.newPage()
    await page.goto(url.href)
    if (await page.getByLabel('Username').count() > 0) {
      await page.getByLabel('Username').fill(env('TW_USER'))
      await page.getByLabel('Password').fill(env('TW_PASSWORD'))
      await page.getByRole('button', { name: 'Sign in' }).click()
      step('signed in')
    }
    const approve = page.getByRole('button', { name: 'Approve' })
    await approve.waitFor({ timeout: 20000 })
    out.consent = (await page.locator('body').innerText()).slice(0, 4000)
    await approve.click()
    step('approved')
  },
}

const connect = async () => {
  const client = new Client({ name: 'typeward-sdk-host-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })
  await client.connect(transport)
  return { client, transport }
}

try {
  let session
  try {
    session = await connect()
    throw new Error('connected without authorizing')
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e
  }
  const arrived = await codes
  out.callback = arrived
  if (arrived.error || !arrived.code) throw new Error('no code: ' + JSON.stringify(arrived))
  const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })
  await transport.finishAuth(arrived.code)
  step('code redeemed')
  out.firstToken = store.tokens.access_token
  out.scope = store.tokens.scope
  out.hasRefreshToken = !!store.tokens.refresh_token
  session = await connect()
  out.tools = (await session.client.listTools()).tools.map((t) => t.name)
  out.result = await session.client.callTool({ name: tool, arguments: args })
  await session.client.close()

  // Refresh: auth() with a stored refresh token refreshes it.
  out.refresh = await auth(provider, { serverUrl })
  out.secondToken = store.tokens.access_token
  session = await connect()
  out.resultAfterRefresh = await session.client.callTool({ name: tool, arguments: args })
  await session.client.close()
} catch (e) {
  out.error = String(e?.stack ?? e)
} finally {
  await browser.close()
  callback.close()
  await fs.rm(userDataDir, { recursive: true, force: true })
}
process.stdout.write(JSON.stringify(out) + '\n')
