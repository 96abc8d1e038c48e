console.log('checks pass');
