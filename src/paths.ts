import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The package root (where package.json, templates/ and system-prompts/ live), from src/ or dist/. */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const PACKAGE_SYSTEM_PROMPTS = join(PACKAGE_ROOT, 'system-prompts')
export const PACKAGE_TEMPLATES = join(PACKAGE_ROOT, 'templates')
export const DEFAULT_DATA_DIR = '.svc'
