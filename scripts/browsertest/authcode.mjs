// oauth4webapi, unmodified, as an interactive MCP host uses typeward:
// discovery, the authorization code grant with PKCE (S256) and RFC 9207
// iss checked, a person's consent in headless Chromium (consent.mjs), the
// code's redemption, two refreshes, and a replay of the used refresh
// token, refused. The callback is a loopback listener on a port of its
// own (RFC 8252 §7.3: the client registered http://127.0.0.1/callback).
// Prints one JSON object for the Go test to check.
import * as oauth from 'oauth4webapi'
import http from 'node:http'
import { consent } from './consent.mjs'

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v }
const issuer = new URL(env('TW_ISSUER'))
const insecure = { [oauth.allowInsecureRequests]: true } // the test server is http on 127.0.0.1

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
const client = { client_id: env('TW_CLIENT_ID') }
const auth = oauth.None()

// The loopback callback: answers the browser and hands over the URL.
let arrived
const callback = new Promise((resolve) => { arrived = resolve })
const server = http.createServer((req, res) => {
  res.end('OK')
  arrived(new URL(req.url, `http://127.0.0.1:${server.address().port}`))
})
await new Promise((r) => server.listen(0, '127.0.0.1', r))
const redirectURI = `http://127.0.0.1:${server.address().port}/callback`

const verifier = oauth.generateRandomCodeVerifier()
const state = oauth.generateRandomState()
const url = new URL(as.authorization_endpoint)
url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectURI, state,
  code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  scope: env('TW_SCOPE'), resource: env('TW_RESOURCE') }).toString()

const out = {}
try {
  out.page = await consent(url.href, env('TW_USER'), env('TW_PASSWORD'))
  const back = await callback
  const params = oauth.validateAuthResponse(as, client, back, state) // checks iss against the metadata's issuer
  const code = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectURI, verifier,
    { additionalParameters: { resource: env('TW_RESOURCE') }, ...insecure })
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, code)
  out.code = { scope: tokens.scope, hasRefresh: !!tokens.refresh_token, accessToken: tokens.access_token,
    details: tokens.authorization_details }
  const first = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, insecure))
  const second = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure))
  out.refreshes = [first, second].map((t) => ({ rotated: !!t.refresh_token, accessToken: t.access_token }))
  out.rotatedEachTime = first.refresh_token !== tokens.refresh_token && second.refresh_token !== first.refresh_token
  try {
    await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure))
    out.replay = 'accepted'
  } catch (e) {
    out.replay = e instanceof oauth.ResponseBodyError ? e.error : String(e)
  }
} finally {
  server.close()
}
console.log(JSON.stringify(out))
