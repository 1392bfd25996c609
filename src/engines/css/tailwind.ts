/** css engine `tailwind`: only the classes the source uses, compiled on the server (Tailwind 4). */
import {tailwindCandidates} from './tailwind-candidates.js'
import {loadCompiler} from '../load.js'
import type {CssEngineSpec} from '../types.js'

/** Where the compile worker finds packages (a name, not a literal URL: bundlers leave it alone). */
const LIBS = '../../compile/libs.js'

export const tailwind: CssEngineSpec = {
  name: 'tailwind',
  packages: ['tailwindcss', '@tailwindcss/node'],
  devAs: 'tailwind_all',
  async prepare() {
    await loadCompiler('@tailwindcss/node')
  },
  async compile(source) {
    const {compile, optimize} = await loadCompiler<typeof import('@tailwindcss/node')>('@tailwindcss/node')
    const {packageDir} = await loadCompiler<typeof import('../../compile/libs.js')>(new URL(LIBS, import.meta.url).href)
    const compiler = await compile('@import "tailwindcss";', {base: packageDir('tailwindcss'), onDependency: () => {}})
    const css = compiler.build(tailwindCandidates(source))
    return optimize(css, {minify: true}).code
  },
}
