# The merchant app of compose.yaml: the Node example receiver and express, nothing else.
# Its build context is examples/ (compose.yaml says so), where the receiver lives.
FROM node:20-slim
WORKDIR /app
# The express the repository itself runs the receiver with (package-lock.json).
RUN npm install --no-audit --no-fund express@5.3.0 && npm cache clean --force
COPY receivers/node/receiver.mjs ./
# Every interface: the sandbox reaches it from its own container, as merchant-app:3000.
ENV HOST=0.0.0.0 \
    PORT=3000
USER node
EXPOSE 3000
# node is PID 1 and the receiver keeps nothing on disk, so a SIGTERM may simply end it.
CMD ["node", "receiver.mjs"]
