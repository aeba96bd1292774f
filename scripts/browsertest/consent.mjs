// A person's consent on typeward's authorization page, in headless
// Chromium (playwright-core, Debian's /usr/bin/chromium): open the
// authorization URL, sign in with Username and Password, press Approve,
// and follow the redirect to the client's redirect URI. Used by
// authcode.mjs, and run alone (TW_AUTHORIZE_URL, TW_USER, TW_PASSWORD) for
// the conformance suite, which waits on its own callback server. Prints,
// alone, one JSON object: the final URL and what the page showed.
import { chromium } from 'playwright-core'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

export async function consent(authorizeURL, user, password) {
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'typeward-chromium-'))
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  const out = { dialogs: [] }
  try {
    const page = browser.pages()[0] ?? await browser.newPage()
    page.on('dialog', (d) => { out.dialogs.push(d.message()); d.dismiss() })
    const first = await page.goto(authorizeURL)
    out.csp = (await first.allHeaders())['content-security-policy']
    await page.getByLabel('Username').fill(user)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const approve = page.getByRole('button', { name: 'Approve' })
    await approve.waitFor()
    out.shown = await page.locator('main').innerText()
    // The redirect leaves typeward for the client's redirect URI.
    const left = page.waitForURL((u) => !u.pathname.startsWith('/oauth2/authorize'))
    await approve.click()
    await left
    out.finalURL = page.url()
  } finally {
    await browser.close()
    await fs.rm(userDataDir, { recursive: true, force: true })
  }
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v }
  console.log(JSON.stringify(await consent(env('TW_AUTHORIZE_URL'), env('TW_USER'), env('TW_PASSWORD'))))
}
