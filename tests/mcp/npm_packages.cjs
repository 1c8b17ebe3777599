// Where the MCP tests find their npm packages: installed by `scripts/setup.sh --test-packages`
// into ${GPUWHY_NPM_DIR:-$HOME/.cache/gpuwhy-npm}, outside the source tree. A test without
// them exits 77, which ctest reports as skipped (SKIP_RETURN_CODE), with the reason.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createRequire } = require('module');

const SKIP = 77;

function npmDir() {
  return process.env.GPUWHY_NPM_DIR || path.join(os.homedir(), '.cache', 'gpuwhy-npm');
}

// A require() that resolves in the npm folder; exits 77 when |pkg| is not installed there.
function requireFromNpmDir(pkg) {
  const dir = npmDir();
  const manifest = path.join(dir, 'node_modules', pkg, 'package.json');
  if (!fs.existsSync(manifest)) {
    console.log(`SKIP: ${pkg} is not installed in ${dir} (scripts/setup.sh --test-packages ` +
                `installs it; GPUWHY_NPM_DIR names another folder)`);
    process.exit(SKIP);
  }
  return createRequire(path.join(dir, 'node_modules', '.gpuwhy-resolve.js'));
}

module.exports = { SKIP, npmDir, requireFromNpmDir };
