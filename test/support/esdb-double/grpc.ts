/**
 * TEST DOUBLE support: the gRPC runtime and the EventStoreDB message classes, taken from inside
 * `@eventstore/db-client` so that the double and the client speak through one copy of each. A second
 * copy of `@grpc/grpc-js` or of the generated classes would still serialise the same bytes, but
 * `instanceof` checks in the generated code would fail across copies.
 */
import { createRequire } from 'node:module';
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as GrpcModule from '@grpc/grpc-js';

const fromClient = createRequire(createRequire(import.meta.url).resolve('@eventstore/db-client'));

export const grpc: typeof GrpcModule = fromClient('@grpc/grpc-js');
export const { StreamsService } = streamsGrpc;
export const { ServerFeaturesService } = serverFeaturesGrpc;
export const { AppendReq, AppendResp, ReadReq, ReadResp } = streamsPb;
export const { Empty, StreamIdentifier, UUID } = sharedPb;
export const { SupportedMethod, SupportedMethods } = serverFeaturesPb;

export type AppendReqMessage = InstanceType<typeof AppendReq>;
export type AppendRespMessage = InstanceType<typeof AppendResp>;
export type ReadReqMessage = InstanceType<typeof ReadReq>;
export type ReadRespMessage = InstanceType<typeof ReadResp>;
