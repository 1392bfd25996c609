/** css engine `none`: only the app's own styles. */
import type {CssEngineSpec} from '../types.js'

export const none: CssEngineSpec = {name: 'none', packages: []}
