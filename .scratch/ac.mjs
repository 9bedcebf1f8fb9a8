import http from 'node:http';
import autocannon from 'autocannon';
const server = http.createServer((req, res) => { res.setHeader('content-type','application/json'); res.end('{"ok":true,"u":"' + req.url + '"}'); });
server.listen(0, async () => {
  const port = server.address().port;
  for (const url of [`http://127.0.0.1:${port}/x?to=%2B1415&from=%2B1212&sid=CAbench`, `http://127.0.0.1:${port}/x?to=+1415&from=null&sid=CAbench`]) {
    const r = await autocannon({ url, connections: 2, duration: 1 });
    console.log(url, r.requests.total, r.non2xx, r.errors);
  }
  server.close();
});
