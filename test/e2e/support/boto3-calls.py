"""Several boto3 client calls in one run, for the e2e suite (test/e2e/s3-reads-rgw.test.ts).

    /usr/bin/python3 -I boto3-calls.py '[{"method": "get_bucket_versioning", "params": {"Bucket": "b"}}, ...]'

Credentials, region and the endpoint (E2E_ENDPOINT) come from the environment, as for
boto3-driver.py. Prints one JSON line: a list with, per call, {"ok": true, "keys": [top-level keys
of the answer]} or {"error": {"code", "message", "status"}} for an S3 error document the service
answered. Anything else (a connection failure, an answer boto3 cannot parse) ends the run with a
traceback and exit status 1.
"""

import json
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def main():
    calls = json.loads(sys.argv[1])
    client = boto3.session.Session().client(
        "s3",
        endpoint_url=os.environ["E2E_ENDPOINT"],
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
    results = []
    for call in calls:
        try:
            answer = getattr(client, call["method"])(**call["params"])
            body = answer.pop("Body", None)
            if body is not None:
                answer["BodyText"] = body.read().decode("utf-8", "replace")
            answer.pop("ResponseMetadata", None)
            results.append({"ok": True, "keys": sorted(answer.keys()), "answer": json.loads(json.dumps(answer, default=str))})
        except ClientError as error:
            details = error.response.get("Error", {})
            results.append(
                {
                    "error": {
                        "code": details.get("Code"),
                        "message": details.get("Message"),
                        "status": error.response.get("ResponseMetadata", {}).get("HTTPStatusCode"),
                    }
                }
            )
    print(json.dumps(results))


main()
