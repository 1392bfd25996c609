/** css engine `tailwind`: only the classes the source uses, compiled on the server (Tailwind 4). */
import {tailwindCandidates} from './tailwind-candidates.js'
import type {CssEngineSpec} from '../types.js'

export const tailwind: CssEngineSpec = {
  name: 'tailwind',
  packages: ['tailwindcss', '@tailwindcss/node'],
  devAs: 'tailwind_all',
  async prepare() {
    await import('@tailwindcss/node')
  },
  async compile(source) {
    const {compile, optimize} = await import('@tailwindcss/node')
    const {packageDir} = await import('../../compile/libs.js')
    const compiler = await compile('@import "tailwindcss";', {base: packageDir('tailwindcss'), onDependency: () => {}})
    const css = compiler.build(tailwindCandidates(source))
    return optimize(css, {minify: true}).code
  },
}
