/**
 * kaboom games, run on kaplay 3001 (kaboom's maintained successor). `kaboom()` (the old name)
 * also defines the kaboom 2000 globals kaplay renamed (docs/apps.md "Game engines").
 */
import type {EngineSpec} from './types.js'

/**
 * The kaboom 2000 API that kaplay renamed or dropped, defined by `kaboom()` (the old name) in
 * global mode, each only when kaplay has no function of that name:
 * - `gravity(n)` (now `setGravity`), and kaboom 2000's default gravity of 2400 (kaplay starts at 0:
 *   a `body()` would never fall);
 * - `origin(pos)` (now `anchor`), `dir(deg)` (now `Vec2.fromAngle`);
 * - `solid()` (now a static `body`), `area({width, height, offset})` (now `area({shape})`);
 * - `cleanup()` (now `offscreen({destroy: true})`), `layers()`/`layer()` (gone: order by `z`);
 * - `text(n)` of a number, and `obj.text = n`, shown as the number (kaplay wants a string).
 * `kaplay()` itself is untouched.
 */
export const KABOOM_COMPAT = `const svcKaplay = globalThis.kaplay
globalThis.kaboom = (options) => {
  const k = svcKaplay(options)
  if (options && options.global === false) return k
  const g = globalThis
  const missing = (name) => typeof g[name] !== 'function'
  if (missing('gravity')) g.gravity = (n) => (n === undefined ? k.getGravity() : k.setGravity(n))
  if (k.getGravity() === 0) k.setGravity(options && typeof options.gravity === 'number' ? options.gravity : 2400)
  if (missing('origin')) g.origin = k.anchor
  if (missing('dir')) g.dir = (deg) => k.Vec2.fromAngle(deg)
  const solid = {}
  if (missing('solid')) g.solid = () => solid
  if (missing('cleanup')) g.cleanup = () => k.offscreen({destroy: true})
  if (missing('layers')) g.layers = () => {}
  if (missing('layer')) g.layer = () => ({id: 'svc-layer'})
  const area = k.area
  g.area = (opt) => {
    if (!opt || opt.shape || (opt.width === undefined && opt.height === undefined)) return area(opt)
    const {width, height, offset, ...rest} = opt
    return area({...rest, shape: new k.Rect(offset ?? k.vec2(0), width ?? 0, height ?? 0)})
  }
  const text = k.text
  g.text = (t, opt) => {
    const comp = text(typeof t === 'string' ? t : String(t), opt)
    const desc = Object.getOwnPropertyDescriptor(comp, 'text')
    if (desc && desc.set) {
      Object.defineProperty(comp, 'text', {configurable: true, enumerable: true, get: desc.get,
        set(v) { desc.set.call(this, typeof v === 'string' ? v : String(v)) }})
    }
    return comp
  }
  const add = k.add
  const withSolid = (comps) => Array.isArray(comps) && comps.includes(solid)
    ? comps.filter((c) => c !== solid).concat(comps.some((c) => c && c.id === 'body') ? [] : [k.body({isStatic: true})])
    : comps
  g.add = (comps) => add(withSolid(comps))
  return k
}
`

export const kaboom: EngineSpec = {
  name: 'kaboom',
  library: 'kaplay 3001',
  sourceFile: 'game.js',
  language: 'ts',
  extensions: [],
  byContent: {extensions: ['js', 'mjs', 'ts'], rank: 2, recognizes: (source) => /from\s+['"](kaboom|kaplay)['"]|\b(kaboom|kaplay)\s*\(/.test(source)},
  packages: ['esbuild', 'kaplay'],
  compile: 'game',
  imports: ['kaboom', 'kaplay'],
  game: {
    lib: {name: 'kaplay.mjs', pkg: 'kaplay', file: 'dist/kaplay.mjs'},
    importNames: ['kaboom', 'kaplay'],
    prelude: (lib) => `import kaplay from ${JSON.stringify(lib)}\nglobalThis.kaplay = kaplay\n${KABOOM_COMPAT}`,
  },
  page: {script: 'module', cssFramework: false, fullscreenCanvas: true},
  template: 'game.js',
  compat: ['kaboom() starts kaplay with the kaboom 2000 API bridged: gravity(n) and a default gravity of 2400, origin(pos), dir(deg), solid(), area({width, height, offset}), cleanup(), layers()/layer(), text(number).'],
}
