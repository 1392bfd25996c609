// The sandbox of every frame in which the console shows an app (a dashboard tile, the editor's
// preview). An app is other people's code on its own origin; in a frame of the console it keeps
// what it needs to run — its scripts, its own origin (so its cookie sign-in, storage and fetches
// work: the origin differs from the console's, so this does not let it reach the console), forms,
// and links or downloads the user opens — and loses what would act on the console: no alert(),
// confirm(), prompt() or print() over the console (no allow-modals), no navigating the console's
// tab away (no allow-top-navigation), no pointer lock or presentation. docs/security.md.
export const APP_FRAME_SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads'
