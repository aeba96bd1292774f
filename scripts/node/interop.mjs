// typeward's interop checks, run by scripts/node-interop.sh with npm
// packages typeward did not write:
//   digest FILE              recompute each vector's RFC 8785 canonical JSON and
//                            sha256 digest with `canonicalize`; print them as JSON
//   jwt JWKS_URL ISSUER AUD  verify the token on stdin with `jose` against the
//                            published JWKS; print its header and payload as JSON
//   tool FILE                the digest of a tools/list entry (a JSON file)
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as jose from 'jose';

const require = createRequire(import.meta.url);
const canonicalize = require('canonicalize');

function digestOf(tool) {
  const doc = { inputSchema: tool.inputSchema };
  if (tool.outputSchema !== undefined && tool.outputSchema !== null) doc.outputSchema = tool.outputSchema;
  const canonical = canonicalize(doc);
  return { canonical, digest: 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex') };
}

const [cmd, ...args] = process.argv.slice(2);
switch (cmd) {
  case 'digest': {
    const vectors = JSON.parse(readFileSync(args[0], 'utf8')).vectors;
    console.log(JSON.stringify(vectors.map((v) => ({ name: v.name, ...digestOf(v.tool) }))));
    break;
  }
  case 'tool':
    console.log(JSON.stringify(digestOf(JSON.parse(readFileSync(args[0], 'utf8')))));
    break;
  case 'jwt': {
    const [jwksURL, issuer, audience] = args;
    const token = readFileSync(0, 'utf8').trim();
    const jwks = jose.createRemoteJWKSet(new URL(jwksURL));
    const { payload, protectedHeader } = await jose.jwtVerify(token, jwks, {
      issuer, audience, typ: 'at+jwt', algorithms: ['ES256', 'EdDSA'],
    });
    console.log(JSON.stringify({ header: protectedHeader, payload }));
    break;
  }
  default:
    console.error(`unknown command ${cmd}`);
    process.exit(2);
}
