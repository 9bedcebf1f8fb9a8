import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';

// /graphql over Express: the request handed to Apollo as it came (the body
// already parsed by the JSON body rules), its answer written back in one
// write with its length, and without an ETag, like every API answer
// (sendJson in src/http/edge.ts).

export function graphqlHandler<C extends BaseContext>(
  apollo: ApolloServer<C>,
  context: (req: Request, res: Response) => Promise<C>,
): RequestHandler {
  apollo.assertStarted('graphqlHandler()');
  return async (req, res, next) => {
    try {
      const headers = new HeaderMap();
      for (const key in req.headers) {
        const value = req.headers[key];
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const query = req.url.indexOf('?');
      const answer = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: req.method.toUpperCase(),
          headers,
          search: query < 0 ? '' : req.url.slice(query),
          body: req.body,
        },
        context: () => context(req, res),
      });
      // Apollo names its headers in lower case; Content-Type keeps the spelling of every other answer.
      for (const [name, value] of answer.headers) res.setHeader(name === 'content-type' ? 'Content-Type' : name, value);
      res.statusCode = answer.status ?? 200;
      if (answer.body.kind === 'complete') {
        res.setHeader('Content-Length', Buffer.byteLength(answer.body.string));
        return void res.end(req.method === 'HEAD' ? undefined : answer.body.string);
      }
      // Incremental delivery: each part as Apollo gives it.
      for await (const chunk of answer.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (error) {
      next(error);
    }
  };
}
