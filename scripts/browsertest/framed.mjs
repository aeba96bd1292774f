// A consent page framed by another site, in headless Chromium
// (playwright-core, Debian's /usr/bin/chromium): TW_FRAMER_URL is a page
// holding two iframes, #consent (typeward's authorization page) and
// #control (a page of the framer's own, which must render, so a frame
// that shows nothing is told from a detection that sees nothing). Prints
// one JSON object: what each frame shows, and what the console logged.
import { chromium } from 'playwright-core'

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
})
const out = { console: [] }
try {
  const page = await browser.newPage()
  page.on('console', (m) => out.console.push(m.text()))
  await page.goto(process.env.TW_FRAMER_URL, { waitUntil: 'load' })
  const shows = async (selector) => {
    const frame = await (await page.$(selector)).contentFrame()
    if (!frame) return { url: '', text: '' }
    let text = ''
    try { text = await frame.locator('body').innerText({ timeout: 2000 }) } catch { text = '' }
    return { url: frame.url(), text }
  }
  out.consent = await shows('#consent')
  out.control = await shows('#control')
} finally {
  await browser.close()
}
console.log(JSON.stringify(out))
