// prepack: the repository's licence texts into the package directory given
// (default: this package), since npm pack does not follow symlinks.
const fs = require('node:fs')
const path = require('node:path')
const root = path.join(__dirname, '..', '..')
const dest = path.resolve(process.argv[2] || path.join(__dirname, '..'))
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) fs.copyFileSync(path.join(root, f), path.join(dest, f))
