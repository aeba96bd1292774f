// The console in a real browser while a standard OAuth client polls:
// oauth4webapi asks for two backchannel approvals and polls the token
// endpoint; headless Chromium (driven by playwright-core, Debian's
// /usr/bin/chromium) signs in, checks each request and its graph, approves
// one, denies the other, reads the latest refusal's witness on the Activity
// page, and screenshots both pages. Prints one JSON
// object for the Go test to check.
import * as oauth from 'oauth4webapi'
import { chromium } from 'playwright-core'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v }
const issuer = new URL(env('TW_ISSUER'))
const artifacts = env('TW_ARTIFACTS')
const insecure = { [oauth.allowInsecureRequests]: true } // the test server is http on 127.0.0.1
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
const client = { client_id: env('TW_CLIENT_ID') }
const auth = oauth.ClientSecretBasic(env('TW_CLIENT_SECRET'))

async function ask(bindingMessage) {
  const params = new URLSearchParams({ authorization_details: env('TW_DETAILS'), resource: env('TW_RESOURCE'),
    binding_message: bindingMessage, scope: 'openid' })
  const resp = await oauth.backchannelAuthenticationRequest(as, client, auth, params, insecure)
  return oauth.processBackchannelAuthenticationResponse(as, client, resp)
}

// poll follows CIBA: wait interval, on slow_down wait 5 s longer.
async function poll({ auth_req_id, interval }) {
  let wait = (interval ?? 5) * 1000
  const seen = []
  for (;;) {
    await sleep(wait)
    const resp = await oauth.backchannelAuthenticationGrantRequest(as, client, auth, auth_req_id, insecure)
    try {
      const token = await oauth.processBackchannelAuthenticationGrantResponse(as, client, resp)
      return { token: token.access_token, at: Date.now(), seen }
    } catch (e) {
      if (!(e instanceof oauth.ResponseBodyError)) throw e
      seen.push(e.error)
      if (e.error === 'authorization_pending') continue
      if (e.error === 'slow_down') { wait += 5000; continue }
      return { error: e.error, description: e.error_description, at: Date.now(), seen }
    }
  }
}

const approveMessage = 'nightly report <b>42</b>'
const denyMessage = '<img src=x onerror=alert(1)> wire transfer'
const toApprove = await ask(approveMessage)
const toDeny = await ask(denyMessage)
const approved = poll(toApprove)
const denied = poll(toDeny)

const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'typeward-chromium-'))
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
})
const out = { dialogs: [], consoleErrors: [] }
try {
  const page = browser.pages()[0] ?? await browser.newPage()
  page.on('dialog', (d) => { out.dialogs.push(d.message()); d.dismiss() })
  page.on('console', (m) => { if (m.type() === 'error') out.consoleErrors.push(m.text()) })
  await page.goto(new URL('/console/approvals', issuer).href)
  await page.getByLabel('Username').fill(env('TW_USER'))
  await page.getByLabel('Password').fill(env('TW_PASSWORD'))
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL('**/console/approvals')

  const first = page.locator('section.request', { hasText: approveMessage })
  const second = page.locator('section.request', { hasText: denyMessage })
  await first.waitFor()
  await second.waitFor()
  out.nodes = await first.locator('svg g.node').count()
  out.edges = await first.locator('svg g.edge').count()
  out.nodeTexts = await first.locator('svg g.node text.tool').allTextContents()
  out.injectedImages = await page.locator('main img').count()
  await page.screenshot({ path: path.join(artifacts, 'approvals.png'), fullPage: true })

  const clickedAt = Date.now()
  await first.getByRole('button', { name: 'Approve' }).click()
  await page.waitForURL('**done=approved')
  const a = await approved
  out.approved = { ...a, msFromApproval: a.at - clickedAt }

  const again = page.locator('section.request', { hasText: denyMessage })
  await again.getByLabel('Reason').fill('not during the freeze')
  await again.getByRole('button', { name: 'Deny' }).click()
  await page.waitForURL('**done=denied')
  out.denied = await denied

  await page.getByRole('link', { name: 'Activity' }).click()
  await page.waitForURL('**/console/activity')
  out.activityCharts = await page.locator('main svg.chart').count()
  // The latest refusals, each issue with its path and witness: the newest
  // with a witness (the denial just made is newer and has no issues).
  const refusal = page.locator('section.refusal', { has: page.locator('code.witness') }).first()
  out.refusalPaths = await refusal.locator('table.issues td:nth-child(2)').allTextContents()
  out.refusalWitnesses = await refusal.locator('code.witness').allTextContents()
  out.refusalWitnessErrors = await refusal.locator('table.issues td:nth-child(5)').allTextContents()
  await page.screenshot({ path: path.join(artifacts, 'activity.png'), fullPage: true })
} finally {
  await browser.close()
  await fs.rm(userDataDir, { recursive: true, force: true })
}
console.log(JSON.stringify(out))
