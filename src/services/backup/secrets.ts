/**
 * Secrets in an archive (connector `secret_token`s, the server's own secrets such as the key of
 * visitors' cookies): carried only when a passphrase is given, each value encrypted with
 * AES-256-GCM under a key derived from it by scrypt; without one they are left out.
 */
import {createCipheriv, createDecipheriv, randomBytes, scryptSync} from 'node:crypto'
import {SvcError} from '../../core/errors.js'
import type {SecretsHeader} from './archive.js'

const CHECK_TEXT = 'svc-archive-secrets'
const SCRYPT = {N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024}

export interface SecretBox {
  header: SecretsHeader
  seal(value: string): string
  open(value: string): string
}

function keyOf(passphrase: string, salt: Buffer): Buffer {
  return scryptSync(passphrase.normalize('NFC'), salt, 32, SCRYPT)
}

function seal(key: Buffer, value: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
  return `enc1:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${data.toString('base64url')}`
}

function open(key: Buffer, sealed: string): string | undefined {
  const [tag0, iv, tag, data] = sealed.split(':')
  if (tag0 !== 'enc1' || !iv || !tag || data === undefined) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

/** A new box for an archive being written. */
export function newSecretBox(passphrase: string): SecretBox {
  const salt = randomBytes(16)
  const key = keyOf(passphrase, salt)
  return {
    header: {kdf: 'scrypt', salt: salt.toString('base64url'), check: seal(key, CHECK_TEXT)},
    seal: (value) => seal(key, value),
    open: (value) => open(key, value) ?? value,
  }
}

/** The box of an archive being read; a wrong passphrase is refused here, before anything is written. */
export function openSecretBox(header: SecretsHeader, passphrase: string): SecretBox {
  const key = keyOf(passphrase, Buffer.from(header.salt, 'base64url'))
  if (open(key, header.check) !== CHECK_TEXT) {
    throw new SvcError('usage', 0, 'wrong passphrase for the archive\'s secrets; nothing was written', undefined,
      'give the passphrase the backup was made with (SVC_BACKUP_PASSPHRASE or --passphrase-file), or restore without secrets by leaving both out')
  }
  return {
    header,
    seal: (value) => seal(key, value),
    open(value) {
      const plain = open(key, value)
      if (plain === undefined) throw new SvcError('usage', 0, 'the archive is damaged: a secret value does not decrypt; nothing was written')
      return plain
    },
  }
}
