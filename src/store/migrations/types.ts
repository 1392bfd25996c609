export interface Migration {
  /** Applied in ascending order, once per data file. Never renumber or edit an applied migration: add one. */
  id: number
  name: string
  up: string
}
