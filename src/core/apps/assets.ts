/**
 * App assets (docs/apps.md "Assets"): files an app loads by a relative URL (`assets/sky.png`),
 * kept per app and served from the app's own origin at that path. Pure rules: which paths and
 * types an asset may have.
 */

/** Content types by extension: images, sounds, fonts and data (sprite sheets, tilemaps). Code is not an asset. */
export const ASSET_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  svg: 'image/svg+xml', ico: 'image/x-icon', bmp: 'image/bmp',
  mp3: 'audio/mpeg', ogg: 'audio/ogg', oga: 'audio/ogg', wav: 'audio/wav', m4a: 'audio/mp4', aac: 'audio/aac', flac: 'audio/flac',
  weba: 'audio/webm', mp4: 'video/mp4', webm: 'video/webm',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf',
  json: 'application/json', xml: 'application/xml', tmx: 'application/xml', tsj: 'application/json', tmj: 'application/json',
  txt: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8', fnt: 'text/plain; charset=utf-8', atlas: 'text/plain; charset=utf-8',
  glsl: 'text/plain; charset=utf-8', frag: 'text/plain; charset=utf-8', vert: 'text/plain; charset=utf-8',
}

export const MAX_ASSET_PATH = 200
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

/** The content type of an asset path, or why the path cannot be an asset. */
export function assetType(path: string): {type: string} | {error: string} {
  if (typeof path !== 'string' || path.length === 0) return {error: "can't be blank"}
  if (path.length > MAX_ASSET_PATH) return {error: `is too long (at most ${MAX_ASSET_PATH} characters)`}
  const segments = path.split('/')
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && !s.endsWith('.'))) {
    return {error: 'must be a relative path of up to 8 parts of letters, digits, `.`, `_` and `-` (no part starting with `.`)'}
  }
  if (segments[0] === '_svc' || segments[0] === 'svc') return {error: 'may not start with _svc/ or svc/ (the server answers there)'}
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase()
  const type = ext ? ASSET_TYPES[ext] : undefined
  if (!type) return {error: `must end with one of .${Object.keys(ASSET_TYPES).join(' .')} (an app's code is its one source file)`}
  return {type}
}
