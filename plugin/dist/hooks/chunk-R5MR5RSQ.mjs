function clip(text,maxChars){return text.length<=maxChars?text:`${text.slice(0,Math.max(0,maxChars-1))}\u2026`}export{clip};
